package main

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/golang/protobuf/ptypes"
	"github.com/jackc/pgx/v4/pgxpool"

	folio "folio-go-peer/folio/v1"
)

// maxPageSize is the page size when the request names none, and the largest served (Folio's).
const maxPageSize = 1000

// listQuery is a ListProjects request; unset text fields are "", as in proto3.
type listQuery struct {
	pageSize   int32
	pageToken  string
	namePrefix string
	city       string
	country    string
	postalCode string
}

// validateListQuery makes the checks of ListProjects after authentication, as Folio's service: no
// NUL in a text filter (PostgreSQL text cannot hold it), no negative page size.
func validateListQuery(q listQuery) error {
	var violations []fieldViolation
	for _, f := range []struct{ name, value string }{
		{"namePrefix", q.namePrefix}, {"city", q.city}, {"country", q.country}, {"postalCode", q.postalCode},
	} {
		if strings.ContainsRune(f.value, 0) {
			violations = append(violations, fieldViolation{f.name, "must not contain the NUL character (U+0000)"})
		}
	}
	if len(violations) > 0 {
		return invalidArgument(violations)
	}
	if q.pageSize < 0 {
		return invalidArgument([]fieldViolation{{"pageSize", "must not be negative"}})
	}
	return nil
}

// listProjects reads one page of the org's projects in (name, id) order, by key after the page
// token's cursor (the query Folio runs, served by the (org_id, name, id) index), one row more than
// the page to tell whether another follows.
func listProjects(ctx context.Context, pool *pgxpool.Pool, tokens *pageTokens, orgID string, q listQuery) (*folio.ListProjectsResponse, error) {
	pageSize := int(q.pageSize)
	if pageSize == 0 || pageSize > maxPageSize {
		pageSize = maxPageSize
	}
	var binding strings.Builder
	binding.WriteByte('[')
	for i, part := range []string{orgID, q.namePrefix, q.city, q.country, q.postalCode} {
		if i > 0 {
			binding.WriteByte(',')
		}
		writeJSString(&binding, part)
	}
	binding.WriteByte(']')
	values := []interface{}{orgID}
	conditions := []string{"org_id = $1::uuid"}
	filter := func(sql func(n string) string, value string) {
		values = append(values, value)
		conditions = append(conditions, sql(strconv.Itoa(len(values))))
	}
	if q.namePrefix != "" {
		filter(func(n string) string { return "starts_with(name, $" + n + ")" }, q.namePrefix)
	}
	if q.city != "" {
		filter(func(n string) string { return "city = $" + n }, q.city)
	}
	if q.country != "" {
		filter(func(n string) string { return "country = $" + n }, q.country)
	}
	if q.postalCode != "" {
		filter(func(n string) string { return "postal_code = $" + n }, q.postalCode)
	}
	if q.pageToken != "" {
		name, id, ok := tokens.decode(q.pageToken, binding.String())
		if !ok {
			return nil, invalidArgument([]fieldViolation{{"pageToken",
				"is not a token of this listing (malformed, altered, or issued for another organisation or filter)"}})
		}
		values = append(values, name, id)
		conditions = append(conditions, "(name, id) > ($"+strconv.Itoa(len(values)-1)+", $"+strconv.Itoa(len(values))+"::uuid)")
	}
	values = append(values, pageSize+1)
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	rows, err := pool.Query(ctx, `SELECT id, org_id, name, street, house_number, postal_code, city, country, created_at
       FROM projects WHERE `+strings.Join(conditions, " AND ")+` ORDER BY name, id LIMIT $`+strconv.Itoa(len(values)), values...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	response := &folio.ListProjectsResponse{Projects: make([]*folio.Project, 0, pageSize+1)}
	for rows.Next() {
		project, err := scanProject(rows.Scan)
		if err != nil {
			return nil, err
		}
		response.Projects = append(response.Projects, project)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(response.Projects) > pageSize {
		response.Projects = response.Projects[:pageSize]
		last := response.Projects[pageSize-1]
		response.NextPageToken = tokens.encode(last.Name, last.Id, binding.String())
	}
	return response, nil
}

// scanProject reads a row as Folio's ListProjects writes it: absent parts of the address unset.
func scanProject(scan func(...interface{}) error) (*folio.Project, error) {
	var project folio.Project
	var street, houseNumber, postalCode, city, country *string
	var createdAt time.Time
	if err := scan(&project.Id, &project.OrgId, &project.Name, &street, &houseNumber, &postalCode, &city, &country, &createdAt); err != nil {
		return nil, err
	}
	if street != nil {
		project.XStreet = &folio.Project_Street{Street: *street}
	}
	if houseNumber != nil {
		project.XHouseNumber = &folio.Project_HouseNumber{HouseNumber: *houseNumber}
	}
	if postalCode != nil {
		project.XPostalCode = &folio.Project_PostalCode{PostalCode: *postalCode}
	}
	if city != nil {
		project.XCity = &folio.Project_City{City: *city}
	}
	if country != nil {
		project.XCountry = &folio.Project_Country{Country: *country}
	}
	timestamp, err := ptypes.TimestampProto(asFolioTime(createdAt))
	if err != nil {
		return nil, err
	}
	project.CreatedAt = timestamp
	return &project, nil
}

// asFolioTime is a time as Folio's answers hold it: a JavaScript Date, whole milliseconds
// (PostgreSQL keeps microseconds; node-pg truncates them).
func asFolioTime(t time.Time) time.Time {
	return t.Truncate(time.Millisecond)
}
