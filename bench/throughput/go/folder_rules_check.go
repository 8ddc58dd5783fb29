package main

import (
	"bufio"
	"encoding/json"
	"io"
	"log"
)

// checkFolderNames reads CreateFolder names, one JSON string a line, and writes for each the
// stored name and name_key, or the refusal's message: for test/go-peer.test.ts to compare the
// rules with the Node peers' on the same names.
func checkFolderNames(in io.Reader, out io.Writer) {
	scanner := bufio.NewScanner(in)
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	encoder := json.NewEncoder(out)
	encoder.SetEscapeHTML(false)
	for scanner.Scan() {
		var name string
		if err := json.Unmarshal(scanner.Bytes(), &name); err != nil {
			log.Fatal(err)
		}
		result := map[string]string{}
		if folder, err := validateFolder(folderRequest{name: name}, nil); err != nil {
			result["error"] = err.Error()
		} else {
			result["name"], result["nameKey"] = folder.name, folder.nameKey
		}
		if err := encoder.Encode(result); err != nil {
			log.Fatal(err)
		}
	}
	if err := scanner.Err(); err != nil {
		log.Fatal(err)
	}
}
