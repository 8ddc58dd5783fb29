package main

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	jose "gopkg.in/square/go-jose.v2"
	"gopkg.in/square/go-jose.v2/jwt"
)

// caller is who calls: the verified token's `sub` and `org_id` claims, lower-cased.
type caller struct {
	userID string
	orgID  string
}

// Folio's defaults, as the Node peers take them (baseline/access-token.ts).
const (
	clockTolerance = 30 * time.Second
	realm          = "folio"
)

var (
	allowedAlgorithms = map[string]bool{"RS256": true, "PS256": true, "ES256": true, "EdDSA": true}
	acceptedTypes     = map[string]bool{"at+jwt": true, "application/at+jwt": true, "jwt": true}
	bearerPattern     = regexp.MustCompile(`(?i)^bearer +([A-Za-z0-9\-._~+/]+=*) *$`)
	uuidPattern       = regexp.MustCompile(`(?i)^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
)

// authenticator verifies RFC 9068 access tokens with go-jose against the keys of a JWKS file, on
// every request (no cache), with the checks Folio makes: issuer, audience, algorithm, `exp`
// required and checked, `iat` not in the future, `typ`, UUID `sub` and `org_id`; then the scope.
type authenticator struct {
	keys     []jose.JSONWebKey
	issuer   string
	audience string
}

func newAuthenticator(cfg config) (*authenticator, error) {
	text, err := os.ReadFile(cfg.jwksFile)
	if err != nil {
		return nil, err
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(text, &set); err != nil {
		return nil, fmt.Errorf("%s: %v", cfg.jwksFile, err)
	}
	return &authenticator{keys: set.Keys, issuer: cfg.issuer, audience: cfg.audience}, nil
}

// authenticate checks the `authorization` value (absent: "") and the scope the operation needs.
func (a *authenticator) authenticate(authorization, scope string) (caller, error) {
	if strings.TrimSpace(authorization) == "" {
		return caller{}, challenge(codes.Unauthenticated, "missing bearer token", `Bearer realm="`+realm+`"`)
	}
	match := bearerPattern.FindStringSubmatch(authorization)
	if match == nil {
		return caller{}, invalidToken("authorization header must be 'Bearer <token>'")
	}
	claims, header, err := a.verify(match[1])
	if err != nil {
		return caller{}, err
	}
	if typ, ok := header.ExtraHeaders[jose.HeaderType].(string); ok && !acceptedTypes[strings.ToLower(typ)] {
		return caller{}, invalidToken(fmt.Sprintf("token type %q is not an access token", typ))
	}
	userID, _ := claims["sub"].(string)
	orgID, _ := claims["org_id"].(string)
	if !uuidPattern.MatchString(userID) {
		return caller{}, invalidToken(`token claim "sub" must be a UUID`)
	}
	if !uuidPattern.MatchString(orgID) {
		return caller{}, invalidToken(`token claim "org_id" must be a UUID`)
	}
	if !hasScope(claims, scope) {
		return caller{}, challenge(codes.PermissionDenied, fmt.Sprintf("token lacks the scope %q", scope),
			fmt.Sprintf(`Bearer realm="%s", error="insufficient_scope", scope="%s"`, realm, scope))
	}
	return caller{userID: strings.ToLower(userID), orgID: strings.ToLower(orgID)}, nil
}

// verify checks the signature with a key of the set and the registered claims, in jose's order
// (algorithm, key, signature, claims present, issuer, audience, nbf, exp), and returns every claim.
func (a *authenticator) verify(raw string) (map[string]interface{}, jose.Header, error) {
	token, err := jwt.ParseSigned(raw)
	if err != nil || len(token.Headers) != 1 {
		return nil, jose.Header{}, invalidToken("token is malformed")
	}
	header := token.Headers[0]
	if !allowedAlgorithms[header.Algorithm] {
		return nil, header, invalidToken("token signature algorithm is not allowed")
	}
	candidates := a.candidates(header)
	if len(candidates) == 0 {
		return nil, header, invalidToken("token is signed with an unknown key")
	}
	var registered jwt.Claims
	var claims map[string]interface{}
	verified := false
	for _, key := range candidates {
		err = token.Claims(key.Key, &registered, &claims)
		if err == nil {
			verified = true
			break
		}
		if !errors.Is(err, jose.ErrCryptoFailure) {
			return nil, header, invalidToken("token is malformed")
		}
	}
	if !verified {
		return nil, header, invalidToken("token signature is invalid")
	}
	for _, claim := range []string{"iss", "aud", "exp"} {
		if _, present := claims[claim]; !present {
			return nil, header, invalidToken(fmt.Sprintf("token has no %q claim", claim))
		}
	}
	expected := jwt.Expected{Issuer: a.issuer, Audience: jwt.Audience{a.audience}, Time: time.Now()}
	if err := registered.ValidateWithLeeway(expected, clockTolerance); err != nil {
		return nil, header, invalidToken(describeFailure(err))
	}
	return claims, header, nil
}

// candidates are the keys that may have signed a token with this header: its `kid` (when it names
// one), a signing key, of the algorithm's type and curve.
func (a *authenticator) candidates(header jose.Header) []jose.JSONWebKey {
	var found []jose.JSONWebKey
	for _, key := range a.keys {
		if header.KeyID != "" && key.KeyID != header.KeyID {
			continue
		}
		if (key.Use != "" && key.Use != "sig") || (key.Algorithm != "" && key.Algorithm != header.Algorithm) {
			continue
		}
		if fitsAlgorithm(key.Key, header.Algorithm) {
			found = append(found, key)
		}
	}
	return found
}

func fitsAlgorithm(key interface{}, algorithm string) bool {
	switch k := key.(type) {
	case *ecdsa.PublicKey:
		return algorithm == "ES256" && k.Curve == elliptic.P256()
	case *rsa.PublicKey:
		return algorithm == "RS256" || algorithm == "PS256"
	case ed25519.PublicKey:
		return algorithm == "EdDSA"
	}
	return false
}

func describeFailure(err error) string {
	switch err {
	case jwt.ErrExpired:
		return "token has expired"
	case jwt.ErrNotValidYet:
		return "token is not yet valid"
	case jwt.ErrIssuedInTheFuture:
		return "token was issued in the future"
	case jwt.ErrInvalidIssuer:
		return "token has the wrong issuer"
	case jwt.ErrInvalidAudience:
		return "token has the wrong audience"
	}
	return "token could not be verified"
}

// hasScope reads `scope` (space-delimited, RFC 9068) and `scp` (an array).
func hasScope(claims map[string]interface{}, scope string) bool {
	if text, ok := claims["scope"].(string); ok {
		for _, s := range strings.Split(text, " ") {
			if s == scope {
				return true
			}
		}
	}
	if list, ok := claims["scp"].([]interface{}); ok {
		for _, s := range list {
			if s == scope {
				return true
			}
		}
	}
	return false
}

func invalidToken(message string) *apiError {
	return challenge(codes.Unauthenticated, message, fmt.Sprintf(`Bearer realm="%s", error="invalid_token", error_description="%s"`,
		realm, strings.ReplaceAll(message, `"`, "'")))
}

func challenge(code codes.Code, message, header string) *apiError {
	return &apiError{code: code, message: message, headers: map[string]string{"www-authenticate": header}}
}
