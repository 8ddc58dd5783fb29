package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/golang/protobuf/proto"
	"github.com/grpc-ecosystem/grpc-gateway/runtime"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	folio "folio-go-peer/folio/v1"
)

// newGateway is grpc-gateway's mux in front of the gRPC server at grpcAddress, set up to answer
// as Folio's REST does: camelCase JSON with every field; X-Request-Id and Idempotency-Key passed
// on, the request id sent back; a page's token in a Link header (next to the body's emptied
// nextPageToken); 201 for a create; errors in Folio's envelope (writeError).
func newGateway(ctx context.Context, grpcAddress string) (http.Handler, error) {
	mux := runtime.NewServeMux(
		runtime.WithMarshalerOption(runtime.MIMEWildcard, &runtime.JSONPb{OrigName: false, EmitDefaults: true}),
		runtime.WithIncomingHeaderMatcher(incomingHeader),
		runtime.WithOutgoingHeaderMatcher(outgoingHeader),
		runtime.WithForwardResponseOption(forwardResponse),
		runtime.WithProtoErrorHandler(writeError),
	)
	dial := []grpc.DialOption{grpc.WithInsecure()}
	if err := folio.RegisterProjectServiceHandlerFromEndpoint(ctx, mux, grpcAddress, dial); err != nil {
		return nil, err
	}
	if err := folio.RegisterFolderServiceHandlerFromEndpoint(ctx, mux, grpcAddress, dial); err != nil {
		return nil, err
	}
	// The forward option sees the context, not the request: the request's URL goes in the
	// context, for the Link header.
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mux.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestURLKey{}, r.URL)))
	}), nil
}

type requestURLKey struct{}

func incomingHeader(key string) (string, bool) {
	switch key {
	case "X-Request-Id", "Idempotency-Key":
		return strings.ToLower(key), true
	}
	return runtime.DefaultHeaderMatcher(key)
}

func outgoingHeader(key string) (string, bool) {
	if key == "x-request-id" {
		return "X-Request-Id", true
	}
	return "", false
}

func forwardResponse(ctx context.Context, w http.ResponseWriter, message proto.Message) error {
	switch m := message.(type) {
	case *folio.ListProjectsResponse:
		if m.NextPageToken != "" {
			if u, ok := ctx.Value(requestURLKey{}).(*url.URL); ok {
				w.Header().Set("Link", nextPageLink(u.EscapedPath(), u.RawQuery, m.NextPageToken))
			}
			m.NextPageToken = ""
		}
	case *folio.CreateFolderResponse:
		w.WriteHeader(http.StatusCreated)
	}
	return nil
}

// writeError writes a failure in Folio's envelope, {"error":{"code","message","requestId",
// "details"}}, with Connect's HTTP status of its code, the request id, and the WWW-Authenticate
// or Retry-After the gRPC server sent as trailers.
func writeError(ctx context.Context, _ *runtime.ServeMux, _ runtime.Marshaler, w http.ResponseWriter, r *http.Request, err error) {
	st := status.Convert(err)
	md, _ := runtime.ServerMetadataFromContext(ctx)
	requestID := ""
	for _, values := range [][]string{md.TrailerMD.Get("x-request-id"), md.HeaderMD.Get("x-request-id")} {
		if len(values) > 0 && requestID == "" {
			requestID = values[0]
		}
	}
	if requestID == "" {
		requestID = requestIDFor(r.Header.Get("X-Request-Id"))
	}
	header := w.Header()
	header.Del("Trailer")
	for _, name := range []string{"www-authenticate", "retry-after"} {
		if values := md.TrailerMD.Get(name); len(values) > 0 {
			header.Set(name, values[0])
		}
	}
	header.Set("Content-Type", "application/json")
	header.Set("X-Request-Id", requestID)
	code, ok := codeNames[st.Code()]
	if !ok {
		code = codeNames[codes.Unknown]
	}
	body := envelope{Error: envelopeError{Code: code.name, Message: st.Message(), RequestID: requestID, Details: []interface{}{}}}
	for _, detail := range st.Details() {
		switch d := detail.(type) {
		case *errdetails.BadRequest:
			violations := make([]violationJSON, len(d.FieldViolations))
			for i, v := range d.FieldViolations {
				violations[i] = violationJSON{Field: v.Field, Description: v.Description}
			}
			body.Error.Details = append(body.Error.Details, badRequestJSON{"google.rpc.BadRequest", violations})
		case *errdetails.ErrorInfo:
			metadata := d.Metadata
			if metadata == nil {
				metadata = map[string]string{}
			}
			body.Error.Details = append(body.Error.Details, errorInfoJSON{"google.rpc.ErrorInfo", d.Reason, d.Domain, metadata})
		}
	}
	var buffer bytes.Buffer
	encoder := json.NewEncoder(&buffer)
	// As JavaScript's JSON.stringify writes it: <, > and & as they are.
	encoder.SetEscapeHTML(false)
	if err := encoder.Encode(body); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.WriteHeader(code.status)
	w.Write(bytes.TrimSuffix(buffer.Bytes(), []byte("\n")))
}

type envelope struct {
	Error envelopeError `json:"error"`
}

type envelopeError struct {
	Code      string        `json:"code"`
	Message   string        `json:"message"`
	RequestID string        `json:"requestId"`
	Details   []interface{} `json:"details"`
}

type badRequestJSON struct {
	Type            string          `json:"type"`
	FieldViolations []violationJSON `json:"fieldViolations"`
}

// violationJSON leaves out an empty field, as protobuf JSON leaves out default values.
type violationJSON struct {
	Field       string `json:"field,omitempty"`
	Description string `json:"description"`
}

type errorInfoJSON struct {
	Type     string            `json:"type"`
	Reason   string            `json:"reason"`
	Domain   string            `json:"domain"`
	Metadata map[string]string `json:"metadata"`
}
