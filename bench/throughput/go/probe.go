package main

import (
	"fmt"
	"log"
	"net/http"
	"runtime"
)

// serveProbe answers GET /allocated with the bytes the Go heap has allocated since the process
// started (runtime.MemStats.TotalAlloc), for the benchmark to read before and after a sample. It
// runs only when the benchmark sets BENCH_PROBE_PORT; ReadMemStats stops the world briefly, so it
// is read between samples, never during one.
func serveProbe(address string) {
	mux := http.NewServeMux()
	mux.HandleFunc("/allocated", func(w http.ResponseWriter, _ *http.Request) {
		var stats runtime.MemStats
		runtime.ReadMemStats(&stats)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"allocatedBytes":%d,"source":"Go runtime.MemStats.TotalAlloc"}`, stats.TotalAlloc)
	})
	log.Fatal(http.ListenAndServe(address, mux))
}
