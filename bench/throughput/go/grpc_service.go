package main

import (
	"context"
	"log"

	"github.com/golang/protobuf/proto"
	"github.com/jackc/pgx/v4/pgxpool"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"

	folio "folio-go-peer/folio/v1"
)

// peer holds what the two methods share: the pool, the page-token key and the token checks.
type peer struct {
	pool   *pgxpool.Pool
	tokens *pageTokens
	auth   *authenticator
}

func newPeer(cfg config) (*peer, error) {
	auth, err := newAuthenticator(cfg)
	if err != nil {
		return nil, err
	}
	tokens, err := newPageTokens(cfg.pageTokenSecret)
	if err != nil {
		return nil, err
	}
	pool, err := newPool(cfg)
	if err != nil {
		return nil, err
	}
	return &peer{pool: pool, tokens: tokens, auth: auth}, nil
}

func (p *peer) close() { p.pool.Close() }

// rawMessage keeps a request message's bytes: grpc-go's proto codec hands them over as they came
// (a proto.Unmarshaler), so that a message that does not parse is answered INVALID_ARGUMENT, as
// Folio and the grpc-js peer answer it, rather than grpc-go's INTERNAL.
type rawMessage []byte

func (m *rawMessage) Reset()                   { *m = (*m)[:0] }
func (m *rawMessage) String() string           { return "raw request message" }
func (*rawMessage) ProtoMessage()              {}
func (m *rawMessage) Unmarshal(b []byte) error { *m = append((*m)[:0], b...); return nil }

// registerServices serves ListProjects and CreateFolder. The service descriptions are written here
// rather than taken from the generated code only so that the handlers get the raw message (above);
// the other methods of the services are UNIMPLEMENTED.
func registerServices(server *grpc.Server, p *peer) {
	method := func(name string, call func(context.Context, []byte, metadata.MD) (proto.Message, error)) grpc.MethodDesc {
		return grpc.MethodDesc{
			MethodName: name,
			Handler: func(_ interface{}, ctx context.Context, decode func(interface{}) error, _ grpc.UnaryServerInterceptor) (interface{}, error) {
				var raw rawMessage
				if err := decode(&raw); err != nil {
					return nil, err
				}
				return unary(ctx, raw, call)
			},
		}
	}
	server.RegisterService(&grpc.ServiceDesc{
		ServiceName: "folio.v1.ProjectService",
		HandlerType: (*interface{})(nil),
		Methods:     []grpc.MethodDesc{method("ListProjects", p.listProjects)},
		Metadata:    "folio/v1/project.proto",
	}, p)
	server.RegisterService(&grpc.ServiceDesc{
		ServiceName: "folio.v1.FolderService",
		HandlerType: (*interface{})(nil),
		Methods:     []grpc.MethodDesc{method("CreateFolder", p.createFolder)},
		Metadata:    "folio/v1/folder.proto",
	}, p)
}

// unary runs a method with the request id (the caller's x-request-id when it is a plain token) in
// the response headers, as Folio sends it on every protocol; a failure as a gRPC status with the
// request id and the error's headers as trailers (database failures as Folio maps them, anything
// unexpected INTERNAL).
func unary(ctx context.Context, raw []byte, call func(context.Context, []byte, metadata.MD) (proto.Message, error)) (interface{}, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	requestID := requestIDFor(first(md, "x-request-id"))
	response, err := call(ctx, raw, md)
	if err == nil {
		grpc.SendHeader(ctx, metadata.Pairs("x-request-id", requestID))
		return response, nil
	}
	failure := asAPIError(err, requestID)
	trailer := metadata.Pairs("x-request-id", requestID)
	for name, value := range failure.headers {
		trailer.Set(name, value)
	}
	grpc.SetTrailer(ctx, trailer)
	return nil, failure.status().Err()
}

func asAPIError(err error, requestID string) *apiError {
	if failure, ok := err.(*apiError); ok {
		return failure
	}
	if failure := databaseFailure(err); failure != nil {
		return failure
	}
	log.Printf("request %s failed: %v", requestID, err)
	return newError(codes.Internal, "internal error (request id "+requestID+")")
}

func (p *peer) listProjects(ctx context.Context, raw []byte, md metadata.MD) (proto.Message, error) {
	var request folio.ListProjectsRequest
	if err := proto.Unmarshal(raw, &request); err != nil {
		return nil, newError(codes.InvalidArgument, "parse binary: "+err.Error())
	}
	who, err := p.auth.authenticate(first(md, "authorization"), "project:read")
	if err != nil {
		return nil, err
	}
	query := listQuery{
		pageSize:   request.PageSize,
		pageToken:  request.PageToken,
		namePrefix: request.NamePrefix,
		city:       request.City,
		country:    request.Country,
		postalCode: request.PostalCode,
	}
	if err := validateListQuery(query); err != nil {
		return nil, err
	}
	return listProjects(ctx, p.pool, p.tokens, who.orgID, query)
}

func (p *peer) createFolder(ctx context.Context, raw []byte, md metadata.MD) (proto.Message, error) {
	var request folio.CreateFolderRequest
	if err := proto.Unmarshal(raw, &request); err != nil {
		return nil, newError(codes.InvalidArgument, "parse binary: "+err.Error())
	}
	who, err := p.auth.authenticate(first(md, "authorization"), "files:upload")
	if err != nil {
		return nil, err
	}
	fields := folderRequest{name: request.Name}
	if v, ok := request.XParentId.(*folio.CreateFolderRequest_ParentId); ok {
		fields.parentID = &v.ParentId
	}
	if v, ok := request.XColor.(*folio.CreateFolderRequest_Color); ok {
		fields.color = &v.Color
	}
	if v, ok := request.XRequestId.(*folio.CreateFolderRequest_RequestId); ok {
		fields.requestID = &v.RequestId
	}
	var idempotencyHeader *string
	if values := md.Get("idempotency-key"); len(values) > 0 {
		idempotencyHeader = &values[0]
	}
	folder, err := validateFolder(fields, idempotencyHeader)
	if err != nil {
		return nil, err
	}
	if folder.idempotencyKey != nil {
		// Not part of the comparison (its workload sends no key): refused rather than ignored, as
		// the Node peers do.
		return nil, newError(codes.Unimplemented, "idempotency keys are not implemented by this baseline service")
	}
	created, err := createFolder(ctx, p.pool, who, folder)
	if err != nil {
		return nil, err
	}
	return &folio.CreateFolderResponse{Folder: created}, nil
}

// first is the first value of a metadata key, "" when absent.
func first(md metadata.MD, key string) string {
	if values := md.Get(key); len(values) > 0 {
		return values[0]
	}
	return ""
}
