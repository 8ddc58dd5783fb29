package main

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync"
)

// Page tokens as Folio and the Node peers make them (bench/throughput/src/baseline/page-token.ts),
// so that each reads the others': `2.<base64url of a random 12-byte nonce, the cursor's JSON
// `[name, id]` padded with spaces to a multiple of 32 bytes and encrypted with AES-256-GCM under a
// key HKDF-SHA256-derived from the secret, and the 16-byte tag>`, the binding (the org and the
// filters, as JSON) the associated data.
const (
	tokenVersion = "2"
	tokenKeyInfo = "folio/page-token/v2/aes-256-gcm"
	nonceBytes   = 12
	tagBytes     = 16
	padBytes     = 32
)

type pageTokens struct {
	aead cipher.AEAD
	// Nonces are drawn 256 at a time, as the Node peers draw them (one system call per 256 tokens).
	mu     sync.Mutex
	nonces [nonceBytes * 256]byte
	offset int
}

func newPageTokens(secret string) (*pageTokens, error) {
	key := make([]byte, 32)
	if secret == "" {
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
	} else {
		key = hkdfSHA256([]byte(secret), []byte(tokenKeyInfo))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	t := &pageTokens{aead: aead}
	t.offset = len(t.nonces)
	return t, nil
}

// hkdfSHA256 is RFC 5869 with an empty salt, 32 bytes of output (one block of expansion).
func hkdfSHA256(secret, info []byte) []byte {
	extract := hmac.New(sha256.New, make([]byte, sha256.Size))
	extract.Write(secret)
	expand := hmac.New(sha256.New, extract.Sum(nil))
	expand.Write(info)
	expand.Write([]byte{1})
	return expand.Sum(nil)
}

func (t *pageTokens) nextNonce() []byte {
	nonce := make([]byte, nonceBytes)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.offset == len(t.nonces) {
		if _, err := rand.Read(t.nonces[:]); err != nil {
			panic(err)
		}
		t.offset = 0
	}
	copy(nonce, t.nonces[t.offset:])
	t.offset += nonceBytes
	return nonce
}

func (t *pageTokens) encode(name, id, binding string) string {
	var plaintext strings.Builder
	plaintext.WriteByte('[')
	writeJSString(&plaintext, name)
	plaintext.WriteByte(',')
	writeJSString(&plaintext, id)
	plaintext.WriteByte(']')
	for plaintext.Len()%padBytes != 0 {
		plaintext.WriteByte(' ')
	}
	nonce := t.nextNonce()
	sealed := make([]byte, nonceBytes, nonceBytes+plaintext.Len()+tagBytes)
	copy(sealed, nonce)
	sealed = t.aead.Seal(sealed, nonce, []byte(plaintext.String()), []byte(binding))
	return tokenVersion + "." + base64.RawURLEncoding.EncodeToString(sealed)
}

// decode gives the cursor, or ok false when the token is malformed, altered or bound to something else.
func (t *pageTokens) decode(token, binding string) (name, id string, ok bool) {
	parts := strings.Split(token, ".")
	if len(parts) != 2 || parts[0] != tokenVersion {
		return "", "", false
	}
	body, err := base64.RawURLEncoding.Strict().DecodeString(parts[1])
	if err != nil || len(body) < nonceBytes+tagBytes {
		return "", "", false
	}
	plaintext, err := t.aead.Open(nil, body[:nonceBytes], body[nonceBytes:], []byte(binding))
	if err != nil {
		return "", "", false
	}
	var cursor []interface{}
	if json.Unmarshal(plaintext, &cursor) != nil || len(cursor) != 2 {
		return "", "", false
	}
	name, nameOK := cursor[0].(string)
	id, idOK := cursor[1].(string)
	return name, id, nameOK && idOK
}

// writeJSString writes s as JavaScript's JSON.stringify does (Go's encoder escapes more: <, >, &,
// U+2028, U+2029), so that the bindings and cursors are the bytes the Node peers seal.
func writeJSString(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\b':
			b.WriteString(`\b`)
		case c == '\f':
			b.WriteString(`\f`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}
