import type BetterSqlite3 from 'better-sqlite3';

/** The better-sqlite3 handle the store works with. */
export type SqliteDatabase = BetterSqlite3.Database;
export type SqliteStatement = BetterSqlite3.Statement<unknown[], unknown>;
