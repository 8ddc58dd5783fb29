package main

import "strings"

// nextPageLink is the Link header of the next page: the request's own path and query with
// pageToken set (a page_token removed), serialised as Folio's transcoder and the Node peers write
// it (WHATWG URLSearchParams: the parameters in their order, application/x-www-form-urlencoded).
// Go's url.Values would sort the parameters and escape other characters.
func nextPageLink(path, rawQuery, token string) string {
	type pair struct{ name, value string }
	var pairs []pair
	tokenSet := false
	for _, part := range strings.Split(rawQuery, "&") {
		if part == "" {
			continue
		}
		name, value := part, ""
		if i := strings.IndexByte(part, '='); i >= 0 {
			name, value = part[:i], part[i+1:]
		}
		name, value = formDecode(name), formDecode(value)
		switch {
		case name == "page_token":
			continue
		case name == "pageToken" && tokenSet:
			continue
		case name == "pageToken":
			value, tokenSet = token, true
		}
		pairs = append(pairs, pair{name, value})
	}
	if !tokenSet {
		pairs = append(pairs, pair{"pageToken", token})
	}
	var b strings.Builder
	b.WriteByte('<')
	b.WriteString(path)
	b.WriteByte('?')
	for i, p := range pairs {
		if i > 0 {
			b.WriteByte('&')
		}
		formEncode(&b, p.name)
		b.WriteByte('=')
		formEncode(&b, p.value)
	}
	b.WriteString(`>; rel="next"`)
	return b.String()
}

// formDecode is the WHATWG percent-decoding of a form value: `+` is a space, a `%` not followed by
// two hex digits stays as it is, and the bytes are read as UTF-8 with replacement.
func formDecode(s string) string {
	var out []byte
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '+':
			out = append(out, ' ')
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			out = append(out, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
		default:
			out = append(out, c)
		}
	}
	return strings.ToValidUTF8(string(out), "\uFFFD")
}

func formEncode(b *strings.Builder, s string) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '*', c == '-', c == '.', c == '_':
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}
