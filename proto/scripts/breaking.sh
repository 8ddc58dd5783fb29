#!/usr/bin/env bash
# Checks the working tree's API against the main branch with `buf breaking` (FILE rules).
# buf's git input cannot be used directly: main's buf.yaml reads google/api protos from
# node_modules, which git does not hold, so main's proto/ is exported next to our node_modules.
# Both sides are built into images of the folio files (with their imports, which the check leaves
# out): the two workspaces need not have the same modules (a vendored dependency added or
# removed), which `buf breaking` between workspaces refuses.
set -euo pipefail
cd "$(dirname "$0")/.."
against_ref=${1:-main}
if ! git rev-parse --verify --quiet "${against_ref}:proto/buf.yaml" >/dev/null; then
  echo "buf breaking: ${against_ref} has no proto/buf.yaml yet; nothing to compare against"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git -C "$(git rev-parse --show-toplevel)" archive "$against_ref" proto | tar -x -C "$work"
ln -s "$PWD/node_modules" "$work/proto/node_modules"
buf build . --path folio -o "$work/current.binpb"
(cd "$work/proto" && buf build . --path folio -o "$work/against.binpb")
buf breaking "$work/current.binpb" --against "$work/against.binpb" --exclude-imports --config buf.yaml
echo "buf breaking: no breaking changes against ${against_ref}"
