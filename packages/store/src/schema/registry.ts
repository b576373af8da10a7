import type { Generated, Selectable } from 'kysely';
import type { ActorType } from './memories.js';

/** What a category link points at: the engine's own objects, or a host object (`host_type` set). */
export type RegistryObjectKind = 'memory' | 'note' | 'document' | 'transcript' | 'host';

/** `registry_categories`: one broad category of the entity registry, unique per agent by normalized name. */
export interface RegistryCategoriesTable {
  id: string;
  agent_id: string;
  name: string;
  /** The name's comparison form (see the engine's `normalizeCategoryName`). */
  normalized_name: string;
  description: string | null;
  /** JSON array of alias names (kept in their display form). */
  aliases_json: string;
  created_by: ActorType;
  created_at: number;
  updated_at: number;
}

/** `registry_category_links`: one object in one category. */
export interface RegistryCategoryLinksTable {
  category_id: string;
  agent_id: string;
  object_kind: RegistryObjectKind;
  /** The host's type for `host` links (`contact`, `project`...); '' for the engine's own kinds. */
  host_type: string;
  /** Memory, note or document id; a transcript's session key; a host object's `refId`. */
  object_ref: string;
  created_by: ActorType;
  created_at: number;
}

/** `registry_events`: the registry's audit trail (create, update, link, unlink, merge, delete). */
export interface RegistryEventsTable {
  seq: Generated<number>;
  agent_id: string;
  category_id: string;
  action: string;
  actor_id: string | null;
  actor_type: ActorType;
  reason: string | null;
  before_json: string | null;
  after_json: string | null;
  created_at: number;
}

export type RegistryCategoryRow = Selectable<RegistryCategoriesTable>;
export type RegistryLinkRow = Selectable<RegistryCategoryLinksTable>;
export type RegistryEventRow = Selectable<RegistryEventsTable>;
