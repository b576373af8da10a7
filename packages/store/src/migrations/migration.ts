/**
 * One schema migration: ordered SQL statements, each idempotent (`IF NOT EXISTS`), so re-running a
 * migration against a database that already has it changes nothing. The checksum is taken over the
 * statements' text, so editing a released migration is detected as drift.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly statements: readonly string[];
}
