package main

import (
	"fmt"
	"strings"

	"github.com/golang/protobuf/proto"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// apiError is a refusal the client sees: its code, message, google.rpc details, and the headers
// (WWW-Authenticate, Retry-After) that go with it; as the Node peers' ApiError.
type apiError struct {
	code    codes.Code
	message string
	details []proto.Message
	headers map[string]string
}

func (e *apiError) Error() string { return e.message }

// status is the error as a gRPC status, its details in grpc-status-details-bin.
func (e *apiError) status() *status.Status {
	st := status.New(e.code, e.message)
	if len(e.details) == 0 {
		return st
	}
	withDetails, err := st.WithDetails(e.details...)
	if err != nil {
		return status.New(codes.Internal, fmt.Sprintf("error details: %v", err))
	}
	return withDetails
}

func newError(code codes.Code, message string) *apiError {
	return &apiError{code: code, message: message}
}

// fieldViolation is one violation of a google.rpc.BadRequest.
type fieldViolation struct {
	field       string
	description string
}

// invalidArgument is INVALID_ARGUMENT with a google.rpc.BadRequest naming each field, its message
// the violations joined, as Folio's invalidArgument.
func invalidArgument(violations []fieldViolation) *apiError {
	parts := make([]string, len(violations))
	detail := &errdetails.BadRequest{}
	for i, v := range violations {
		parts[i] = v.description
		if v.field != "" {
			parts[i] = v.field + ": " + v.description
		}
		detail.FieldViolations = append(detail.FieldViolations,
			&errdetails.BadRequest_FieldViolation{Field: v.field, Description: v.description})
	}
	return &apiError{code: codes.InvalidArgument, message: strings.Join(parts, "; "), details: []proto.Message{detail}}
}

// errorWithReason carries a google.rpc.ErrorInfo of domain folio.v1, as Folio's errorWithReason.
func errorWithReason(code codes.Code, message, reason string, metadata map[string]string) *apiError {
	info := &errdetails.ErrorInfo{Reason: reason, Domain: "folio.v1", Metadata: metadata}
	return &apiError{code: code, message: message, details: []proto.Message{info}}
}

// codeNames are Connect's names of the codes, as Folio's REST envelope writes them, and their
// HTTP statuses (Connect's mapping).
var codeNames = map[codes.Code]struct {
	name   string
	status int
}{
	codes.Canceled:           {"canceled", 499},
	codes.Unknown:            {"unknown", 500},
	codes.InvalidArgument:    {"invalid_argument", 400},
	codes.DeadlineExceeded:   {"deadline_exceeded", 504},
	codes.NotFound:           {"not_found", 404},
	codes.AlreadyExists:      {"already_exists", 409},
	codes.PermissionDenied:   {"permission_denied", 403},
	codes.ResourceExhausted:  {"resource_exhausted", 429},
	codes.FailedPrecondition: {"failed_precondition", 400},
	codes.Aborted:            {"aborted", 409},
	codes.OutOfRange:         {"out_of_range", 400},
	codes.Unimplemented:      {"unimplemented", 501},
	codes.Internal:           {"internal", 500},
	codes.Unavailable:        {"unavailable", 503},
	codes.DataLoss:           {"data_loss", 500},
	codes.Unauthenticated:    {"unauthenticated", 401},
}
