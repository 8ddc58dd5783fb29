package main

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
	"golang.org/x/text/unicode/norm"
)

// folderRequest is a CreateFolder request; nil for an optional field not sent.
type folderRequest struct {
	name      string
	parentID  *string
	color     *string
	requestID *string
}

// validFolder is a CreateFolder request that passed validation, in the form it is stored.
type validFolder struct {
	name string
	// nameKey is what sibling uniqueness compares: the name case-folded.
	nameKey        string
	parentID       *string
	color          *string
	idempotencyKey *string
}

// The rules of the Node peers' baseline/folder-rules.ts (a copy of Folio's): the same checks, the
// same order, the same messages. The Unicode properties RE2 lacks are range tables generated from
// Node's own regular expressions (unicode_tables.go).
const (
	maxNameLength = 255
	maxKeyLength  = 255
)

var (
	colorPattern        = regexp.MustCompile(`(?i)^#(?:[0-9a-f]{3}|[0-9a-f]{6})$`)
	visibleASCIIPattern = regexp.MustCompile(`^[\x21-\x7e]+$`)
)

// validateFolder validates and normalises a CreateFolder request: name in NFC and trimmed, 1 to
// 255 code points, no control or invisible characters, no `/` or `\`, not `.` or `..`; parentId a
// UUID; color `#rgb` or `#rrggbb`, stored as lower-case `#rrggbb`; idempotency keys of visible
// ASCII. Refuses with INVALID_ARGUMENT naming every field at fault.
func validateFolder(request folderRequest, idempotencyHeader *string) (validFolder, error) {
	var violations []fieldViolation
	name := strings.TrimFunc(norm.NFC.String(request.name), func(r rune) bool { return unicode.Is(trimmedSpaceTable, r) })
	length := utf8.RuneCountInString(name)
	invisible := invisibleCharacter(name)
	switch {
	case length == 0:
		violations = append(violations, fieldViolation{"name", "must not be empty"})
	case length > maxNameLength:
		violations = append(violations, fieldViolation{"name", fmt.Sprintf("must be at most %d characters", maxNameLength)})
	case strings.IndexFunc(name, func(r rune) bool { return unicode.Is(controlTable, r) }) >= 0:
		violations = append(violations, fieldViolation{"name", "must not contain control characters"})
	case invisible >= 0:
		violations = append(violations, fieldViolation{"name", fmt.Sprintf(
			"must not contain invisible characters, bidirectional controls or noncharacters (U+%04X)", invisible)})
	case strings.ContainsAny(name, `/\`):
		violations = append(violations, fieldViolation{"name", `must not contain "/" or "\"`})
	case name == "." || name == "..":
		violations = append(violations, fieldViolation{"name", `must not be "." or ".."`})
	}

	var parentID, color *string
	if request.parentID != nil {
		if uuidPattern.MatchString(*request.parentID) {
			lower := strings.ToLower(*request.parentID)
			parentID = &lower
		} else {
			violations = append(violations, fieldViolation{"parentId", "must be a UUID"})
		}
	}
	if request.color != nil {
		if colorPattern.MatchString(*request.color) {
			expanded := expandColor(strings.ToLower(*request.color))
			color = &expanded
		} else {
			violations = append(violations, fieldViolation{"color", "must be #rgb or #rrggbb"})
		}
	}
	for _, key := range []struct {
		field string
		value *string
	}{{"requestId", request.requestID}, {"Idempotency-Key", idempotencyHeader}} {
		if key.value != nil && (len(*key.value) > maxKeyLength || !visibleASCIIPattern.MatchString(*key.value)) {
			violations = append(violations, fieldViolation{key.field, fmt.Sprintf("must be 1 to %d visible ASCII characters", maxKeyLength)})
		}
	}
	if request.requestID != nil && idempotencyHeader != nil && *request.requestID != *idempotencyHeader {
		violations = append(violations, fieldViolation{"requestId", "differs from the Idempotency-Key header"})
	}
	if len(violations) > 0 {
		return validFolder{}, invalidArgument(violations)
	}
	key := request.requestID
	if key == nil {
		key = idempotencyHeader
	}
	return validFolder{name: name, nameKey: foldCase(name), parentID: parentID, color: color, idempotencyKey: key}, nil
}

// invisibleCharacter is the first invisible character of the name, or -1: a zero-width or
// invisible formatting character, a bidirectional control, a noncharacter, or a zero-width joiner
// outside an emoji sequence (one after a pictograph, with an optional variation selector or skin
// tone between, and before another).
func invisibleCharacter(name string) rune {
	runes := []rune(name)
	for i, r := range runes {
		switch {
		case unicode.Is(bidiControlTable, r), r == 0x200B, r == 0x200C, r >= 0x2060 && r <= 0x2064, r == 0xFEFF,
			unicode.Is(noncharacterTable, r):
			return r
		case r == 0x200D:
			afterPictograph := i > 0 && (unicode.Is(extendedPictographicTable, runes[i-1]) ||
				(i > 1 && (runes[i-1] == 0xFE0F || unicode.Is(emojiModifierTable, runes[i-1])) &&
					unicode.Is(extendedPictographicTable, runes[i-2])))
			beforePictograph := i+1 < len(runes) && unicode.Is(extendedPictographicTable, runes[i+1])
			if !afterPictograph || !beforePictograph {
				return r
			}
		}
	}
	return -1
}

// foldCase is the key sibling names are compared by, as Folio computes name_key: upper-, then
// lower-cased with Unicode's full case mappings ("STRASSE" = "straße"), then NFC again.
func foldCase(name string) string {
	return norm.NFC.String(cases.Lower(language.Und).String(cases.Upper(language.Und).String(name)))
}

func expandColor(color string) string {
	if len(color) == 7 {
		return color
	}
	return string([]byte{'#', color[1], color[1], color[2], color[2], color[3], color[3]})
}
