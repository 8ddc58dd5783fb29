// The Go peer of the throughput comparison: what most teams would write instead of Folio, grpc-go
// serving ListProjects and CreateFolder, grpc-gateway in front of it for REST, pgx for PostgreSQL;
// with the semantics of the Node peers (bench/throughput/src/baseline): the same token checks,
// scopes, org scoping, queries, page tokens, name rules and errors. Built from Debian's packages
// alone by bench/throughput/src/go-peer/build.ts.
//
//	folio-go-peer grpc    # gRPC (h2c) on HOST:PORT
//	folio-go-peer rest    # grpc-gateway on HOST:PORT, in front of grpc-go on a loopback port
//
// Configured by environment variables, as Folio and the Node peers: HOST, PORT, DATABASE_URL,
// DATABASE_POOL_SIZE, AUTH_JWKS_FILE, AUTH_ISSUER, AUTH_AUDIENCE, PAGE_TOKEN_SECRET; and, under the
// benchmark only, BENCH_PROBE_PORT (probe.go).
package main

import (
	"context"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"google.golang.org/grpc"
)

// maxBodyBytes is Folio's MAX_REQUEST_BODY_BYTES default: the largest request message.
const maxBodyBytes = 1 << 20

func main() {
	mode := "grpc"
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	if mode == "folder-rules" {
		checkFolderNames(os.Stdin, os.Stdout)
		return
	}
	cfg, err := loadConfig()
	if err != nil {
		log.Fatal(err)
	}
	p, err := newPeer(cfg)
	if err != nil {
		log.Fatal(err)
	}
	server := grpc.NewServer(grpc.MaxRecvMsgSize(maxBodyBytes))
	registerServices(server, p)
	address := net.JoinHostPort(cfg.host, cfg.port)

	var httpServer *http.Server
	switch mode {
	case "grpc":
		listener, err := net.Listen("tcp", address)
		if err != nil {
			log.Fatal(err)
		}
		go func() { serve(server.Serve(listener)) }()
		fmt.Printf("listening http://%s (gRPC, h2c)\n", listener.Addr())
	case "rest":
		// grpc-gateway 1.6.4 has no in-process handler: its mux dials the gRPC server, which is how
		// a v1 gateway is deployed (here in the same process, over loopback).
		internal, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			log.Fatal(err)
		}
		go func() { serve(server.Serve(internal)) }()
		gateway, err := newGateway(context.Background(), internal.Addr().String())
		if err != nil {
			log.Fatal(err)
		}
		listener, err := net.Listen("tcp", address)
		if err != nil {
			log.Fatal(err)
		}
		// Folio's HTTP/1.1 timeouts: headers 15 s, a whole request 60 s, keep-alive 65 s.
		httpServer = &http.Server{
			Handler:           gateway,
			ReadHeaderTimeout: 15 * time.Second,
			ReadTimeout:       60 * time.Second,
			IdleTimeout:       65 * time.Second,
		}
		go func() { serve(httpServer.Serve(listener)) }()
		fmt.Printf("listening http://%s (REST, grpc-gateway)\n", listener.Addr())
	default:
		log.Fatalf("unknown mode %q: grpc, rest or folder-rules", mode)
	}
	if cfg.probePort != "" {
		go serveProbe(net.JoinHostPort(cfg.host, cfg.probePort))
	}

	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	<-signals
	if httpServer != nil {
		httpServer.Close()
	}
	server.Stop()
	p.close()
}

func serve(err error) {
	if err != nil && err != http.ErrServerClosed && err != grpc.ErrServerStopped {
		log.Fatal(err)
	}
}
