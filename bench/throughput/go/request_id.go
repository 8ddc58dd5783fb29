package main

import (
	"crypto/rand"
	"fmt"
	"regexp"
)

// acceptableRequestID is what Folio keeps of a client's X-Request-Id; anything else gets a new UUID.
var acceptableRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

func requestIDFor(incoming string) string {
	if acceptableRequestID.MatchString(incoming) {
		return incoming
	}
	return newUUID()
}

// newUUID is a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
