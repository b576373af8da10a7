import { queryBuilder } from '../internal/sql.js';
import { get, type Program } from '../program/program.js';
import { findMemoryProgram } from './memories.js';
import { findNoteProgram } from './notes.js';
import type { RegistryObjectKey } from './registry-links.js';

/**
 * Where one of the engine's own objects stands, as the registry shows and cascades it: `live`
 * (for a note: active or resolved), `forgotten` (a memory), `archived` (a note), `deleted` (a
 * document). `pinned` is a memory's flag; `text` is what a preview is cut from.
 */
export interface RegistryObjectFacts {
  readonly status: 'live' | 'forgotten' | 'archived' | 'deleted';
  readonly pinned: boolean;
  readonly text: string | null;
}

/**
 * An object a registry link names, read in `agentId`'s scope: undefined when it is not there
 * (another agent's object reads as missing) and for host objects, which the engine does not hold.
 * One row lookup per kind, on both dialects.
 */
export function* findRegistryObjectProgram(
  agentId: string,
  key: RegistryObjectKey,
): Program<RegistryObjectFacts | undefined> {
  switch (key.kind) {
    case 'memory': {
      const row = yield* findMemoryProgram(agentId, key.ref, { includeDeleted: true });
      if (!row) return undefined;
      return { status: row.is_deleted === 1 ? 'forgotten' : 'live', pinned: row.pinned === 1, text: row.content };
    }
    case 'document': {
      const row = yield* get<{ status: string; title: string | null; source_url: string | null }>(
        queryBuilder
          .selectFrom('documents')
          .select(['status', 'title', 'source_url'])
          .where('id', '=', key.ref)
          .where('agent_id', '=', agentId),
      );
      if (!row) return undefined;
      return {
        status: row.status === 'deleted' ? 'deleted' : 'live',
        pinned: false,
        text: row.title ?? row.source_url,
      };
    }
    case 'transcript': {
      const row = yield* get<{ content: string }>(
        queryBuilder
          .selectFrom('session_transcripts')
          .select('content')
          .where('agent_id', '=', agentId)
          .where('session_key', '=', key.ref),
      );
      return row ? { status: 'live', pinned: false, text: row.content } : undefined;
    }
    case 'note': {
      const row = yield* findNoteProgram(agentId, key.ref);
      if (!row) return undefined;
      return { status: row.status === 'archived' ? 'archived' : 'live', pinned: false, text: row.title };
    }
    case 'host':
      return undefined;
  }
}

/**
 * The text auto-linking classifies an object by, read in `agentId`'s scope; undefined when the
 * object is gone, forgotten, deleted or archived (there is nothing to file then). A document is its
 * title, source and body (its raw content, else its first stored part).
 */
export function* findRegistryObjectTextProgram(agentId: string, key: RegistryObjectKey): Program<string | undefined> {
  switch (key.kind) {
    case 'memory':
      return (yield* findMemoryProgram(agentId, key.ref))?.content;
    case 'document': {
      const row = yield* get<{
        status: string;
        title: string | null;
        source_url: string | null;
        raw_content: string | null;
      }>(
        queryBuilder
          .selectFrom('documents')
          .select(['status', 'title', 'source_url', 'raw_content'])
          .where('id', '=', key.ref)
          .where('agent_id', '=', agentId),
      );
      if (!row || row.status === 'deleted') return undefined;
      const part =
        row.raw_content === null
          ? (yield* get<{ text: string }>(
              queryBuilder
                .selectFrom('document_content_parts')
                .select('text')
                .where('document_id', '=', key.ref)
                .where('part', '=', 0),
            ))?.text
          : undefined;
      const body = row.raw_content ?? part ?? '';
      return [row.title, row.source_url, body].filter((s) => s).join('\n');
    }
    case 'transcript': {
      const facts = yield* findRegistryObjectProgram(agentId, key);
      return facts?.text ?? undefined;
    }
    case 'note': {
      const row = yield* findNoteProgram(agentId, key.ref);
      return row && row.status !== 'archived' ? `${row.title}\n${row.content}` : undefined;
    }
    case 'host':
      return undefined;
  }
}
