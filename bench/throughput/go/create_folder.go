package main

import (
	"context"
	"errors"
	"time"

	"github.com/golang/protobuf/ptypes"
	"github.com/jackc/pgx/v4"
	"github.com/jackc/pgx/v4/pgxpool"
	"google.golang.org/grpc/codes"

	folio "folio-go-peer/folio/v1"
)

// visibilityPrivate is the visibility of every folder in v1, set by the service.
const visibilityPrivate = "private"

// createFolder creates a folder in the caller's org with Folio's rules and queries: the parent
// looked up by (org_id, id) (another org's folder is as absent as a missing one: NOT_FOUND), then
// one INSERT ... ON CONFLICT DO NOTHING, so the unique indexes on name_key decide a clash under
// concurrency; a skipped insert is ALREADY_EXISTS naming the sibling that holds the name.
func createFolder(ctx context.Context, pool *pgxpool.Pool, who caller, folder validFolder) (*folio.Folder, error) {
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	if folder.parentID != nil {
		var id string
		err := pool.QueryRow(ctx, "SELECT id FROM folders WHERE org_id = $1::uuid AND id = $2::uuid", who.orgID, *folder.parentID).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, newError(codes.NotFound, "parent folder not found")
		}
		if err != nil {
			return nil, err
		}
	}
	var created folio.Folder
	var parentID, color *string
	var createdAt time.Time
	err := pool.QueryRow(ctx,
		`INSERT INTO folders (org_id, name, name_key, parent_id, color, visibility, created_by_user_id)
     VALUES ($1::uuid, $2, $3, $4::uuid, $5, $6, $7::uuid)
     ON CONFLICT DO NOTHING
     RETURNING id, org_id, name, parent_id, color, visibility, created_by_user_id, created_at`,
		who.orgID, folder.name, folder.nameKey, folder.parentID, folder.color, visibilityPrivate, who.userID,
	).Scan(&created.Id, &created.OrgId, &created.Name, &parentID, &color, &created.Visibility, &created.CreatedByUserId, &createdAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nameTaken(ctx, pool, who, folder)
	}
	if err != nil {
		return nil, err
	}
	if parentID != nil {
		created.XParentId = &folio.Folder_ParentId{ParentId: *parentID}
	}
	if color != nil {
		created.XColor = &folio.Folder_Color{Color: *color}
	}
	if created.CreatedAt, err = ptypes.TimestampProto(asFolioTime(createdAt)); err != nil {
		return nil, err
	}
	return &created, nil
}

// nameTaken is the ALREADY_EXISTS of a skipped insert, naming the sibling that holds the name; it
// committed before the insert skipped, so it is visible now. Each query matches one of the two
// partial unique indexes (top level, under a parent).
func nameTaken(ctx context.Context, pool *pgxpool.Pool, who caller, folder validFolder) error {
	var existing string
	var err error
	if folder.parentID == nil {
		err = pool.QueryRow(ctx, "SELECT id FROM folders WHERE org_id = $1::uuid AND parent_id IS NULL AND name_key = $2 LIMIT 1",
			who.orgID, folder.nameKey).Scan(&existing)
	} else {
		err = pool.QueryRow(ctx, "SELECT id FROM folders WHERE org_id = $1::uuid AND parent_id = $2::uuid AND name_key = $3 LIMIT 1",
			who.orgID, *folder.parentID, folder.nameKey).Scan(&existing)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return errors.New("folder insert skipped but no sibling has its name")
	}
	if err != nil {
		return err
	}
	return errorWithReason(codes.AlreadyExists, `a folder named "`+folder.name+`" already exists in this parent`,
		"FOLDER_NAME_TAKEN", map[string]string{"folderId": existing})
}
