/**
 * One schema migration: ordered SQL statements per dialect, each idempotent (`IF NOT EXISTS`), so re-running a
 * migration against a database that already has it changes nothing. The checksum is taken over the
 * statements' text, so editing a released migration is detected as drift.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  /** The SQLite form. */
  readonly statements: readonly string[];
  /**
   * The PostgreSQL form, when the subject this migration builds exists on PostgreSQL. A migration
   * without one is not part of the PostgreSQL schema yet: the PostgreSQL runner leaves it out, and
   * applies it once a later release gives it a form. Its checksum is taken over these statements.
   */
  readonly postgres?: readonly string[];
}
