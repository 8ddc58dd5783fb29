package main

import (
	"fmt"
	"os"
	"strconv"
)

// config is what the peer reads from its environment: the variables Folio reads for the same things.
type config struct {
	host        string
	port        string
	databaseURL string
	poolSize    int32
	jwksFile    string
	issuer      string
	audience    string
	// pageTokenSecret keys the page tokens; "" makes a random key per process, as in Folio.
	pageTokenSecret string
	// probePort serves the allocation counter (probe.go); "" serves none.
	probePort string
}

func loadConfig() (config, error) {
	var missing []string
	required := func(name string) string {
		value := os.Getenv(name)
		if value == "" {
			missing = append(missing, name)
		}
		return value
	}
	orDefault := func(name, fallback string) string {
		if value := os.Getenv(name); value != "" {
			return value
		}
		return fallback
	}
	poolSize, err := strconv.Atoi(orDefault("DATABASE_POOL_SIZE", "10"))
	if err != nil || poolSize < 1 {
		return config{}, fmt.Errorf("DATABASE_POOL_SIZE must be a positive integer")
	}
	cfg := config{
		host:            orDefault("HOST", "127.0.0.1"),
		port:            orDefault("PORT", "8080"),
		databaseURL:     required("DATABASE_URL"),
		poolSize:        int32(poolSize),
		jwksFile:        required("AUTH_JWKS_FILE"),
		issuer:          required("AUTH_ISSUER"),
		audience:        required("AUTH_AUDIENCE"),
		pageTokenSecret: os.Getenv("PAGE_TOKEN_SECRET"),
		probePort:       os.Getenv("BENCH_PROBE_PORT"),
	}
	if len(missing) > 0 {
		return config{}, fmt.Errorf("%v must be set", missing)
	}
	return cfg, nil
}
