/** A folder glyph in the folder's colour (grey when it has none). */
export function FolderIcon({ color }: { color: string | undefined }) {
  return (
    <svg className="folder-icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      <path
        d="M3 7.5A2.5 2.5 0 0 1 5.5 5h3.6a2 2 0 0 1 1.5.7l1.2 1.3h6.7A2.5 2.5 0 0 1 21 9.5v8A2.5 2.5 0 0 1 18.5 20h-13A2.5 2.5 0 0 1 3 17.5z"
        fill={color ?? "var(--folder-none)"}
      />
    </svg>
  );
}
