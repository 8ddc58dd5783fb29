package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgconn"
	"github.com/jackc/pgx/v4/pgxpool"
	"google.golang.org/grpc/codes"
)

// queryTimeout bounds a query from the client's side, as the Node peers' pg `query_timeout`.
const queryTimeout = 6 * time.Second

// newPool is pgx's pool set up as Folio's: the same size, the same session timeouts sent at
// connection (statement 5 s, lock 2 s, idle in transaction 10 s) and a 10 s connect timeout. pgx
// prepares and caches each statement per connection by default (node-pg parses each query anew):
// kept, as a team using pgx gets it.
func newPool(cfg config) (*pgxpool.Pool, error) {
	poolConfig, err := pgxpool.ParseConfig(cfg.databaseURL)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_URL: %v", err)
	}
	poolConfig.MaxConns = cfg.poolSize
	poolConfig.ConnConfig.ConnectTimeout = 10 * time.Second
	params := poolConfig.ConnConfig.RuntimeParams
	params["statement_timeout"] = "5000"
	params["lock_timeout"] = "2000"
	params["idle_in_transaction_session_timeout"] = "10000"
	return pgxpool.ConnectConfig(context.Background(), poolConfig)
}

const retryAfterSeconds = "2"

// databaseFailure is a query's failure as the client sees it: the database out of reach or past a
// timeout is UNAVAILABLE with Retry-After (Folio's mapping); nil for anything else.
func databaseFailure(err error) *apiError {
	var pgErr *pgconn.PgError
	var netErr net.Error
	reason := ""
	switch {
	case errors.As(err, &pgErr):
		switch code := pgErr.Code; {
		case code == "55P03":
			reason = "lock-timeout"
		case code == "57014":
			reason = "statement-timeout"
		case strings.HasPrefix(code, "08") || code == "57P01" || code == "57P02" || code == "57P03" || code == "53300":
			reason = "unreachable"
		}
	case errors.Is(err, context.DeadlineExceeded):
		reason = "statement-timeout"
	case errors.As(err, &netErr) || strings.Contains(err.Error(), "failed to connect"):
		reason = "unreachable"
	}
	if reason == "" {
		return nil
	}
	return &apiError{
		code:    codes.Unavailable,
		message: fmt.Sprintf("the database is unavailable (%s); retry in %ss", reason, retryAfterSeconds),
		headers: map[string]string{"retry-after": retryAfterSeconds},
	}
}
