// The library service, in memory: shelves by id, each with its books in the order they were added.
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import {
  type Book,
  BookSchema,
  type LibraryService,
  ListBooksResponseSchema,
  type Shelf,
  ShelfSchema,
} from "./gen/library/v1/library_pb.ts";

export function createLibrary(): ServiceImpl<typeof LibraryService> {
  const shelves = new Map<string, { shelf: Shelf; books: Book[] }>();
  let lastId = 0;
  const shelfOf = (shelfId: string) => {
    const found = shelves.get(shelfId);
    if (found === undefined) throw new ConnectError(`shelf "${shelfId}" not found`, Code.NotFound);
    return found;
  };

  return {
    createShelf({ shelf }) {
      if (!shelf?.theme) throw new ConnectError("a shelf needs a theme", Code.InvalidArgument);
      const created = create(ShelfSchema, { id: String(++lastId), theme: shelf.theme });
      shelves.set(created.id, { shelf: created, books: [] });
      return created;
    },

    getShelf({ shelfId }) {
      return shelfOf(shelfId).shelf;
    },

    createBook({ shelfId, book }) {
      const { books } = shelfOf(shelfId);
      if (!book?.title) throw new ConnectError("a book needs a title", Code.InvalidArgument);
      const created = create(BookSchema, {
        id: String(++lastId),
        shelfId,
        title: book.title,
        author: book.author,
      });
      books.push(created);
      return created;
    },

    getBook({ shelfId, bookId }) {
      const book = shelfOf(shelfId).books.find((candidate) => candidate.id === bookId);
      if (book === undefined)
        throw new ConnectError(`book "${bookId}" not found on shelf "${shelfId}"`, Code.NotFound);
      return book;
    },

    // The page token is the offset of the page's first book.
    listBooks({ shelfId, pageSize, pageToken }) {
      const { books } = shelfOf(shelfId);
      if (pageSize < 0) throw new ConnectError("page_size must not be negative", Code.InvalidArgument);
      if (!/^\d*$/.test(pageToken)) throw new ConnectError("invalid page_token", Code.InvalidArgument);
      const start = Number(pageToken);
      const end = start + (pageSize === 0 ? 10 : Math.min(pageSize, 100));
      return create(ListBooksResponseSchema, {
        books: books.slice(start, end),
        nextPageToken: end < books.length ? String(end) : "",
      });
    },
  };
}
