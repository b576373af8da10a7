import { resolveConfig } from '@memory/core';
import type {
  CategoryObjectsInput,
  CreateCategoryInput,
  CreateNoteInput,
  DeleteCategoryInput,
  EngineRegistry,
  LinkInput,
  ListNotesInput,
  MergeCategoryInput,
  NoteTransitionInput,
  SearchNotesInput,
  UpdateCategoryInput,
  UpdateNoteInput,
} from '@memory/engine';
import { createInputSchemas, createTranscriptSchemas } from '@memory/ingest';
import { createRecallSchema } from '@memory/recall';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { HTTP_ERROR_CODES, HTTP_STATUS } from '../src/index.js';
import {
  type createNoteBody,
  listNotesQuery,
  type noteTransitionBody,
  type searchNotesBody,
  type updateNoteBody,
} from '../src/note-schemas.js';
import {
  type categoriesOfBody,
  type createCategoryBody,
  type deleteCategoryBody,
  deletePreviewQuery,
  type getCategoryQuery,
  type linkBody,
  type listCategoriesQuery,
  type mergeCategoryBody,
  type updateCategoryBody,
} from '../src/registry-schemas.js';
import {
  addDocumentBody,
  appendBody,
  forgetBody,
  modifyBody,
  recallBody,
  recoverBody,
  rememberBody,
  searchTranscriptsBody,
} from '../src/schemas.js';
import { startServer } from './helpers.js';

/** A transport schema's fields, as its input type names them. */
type Fields<S extends z.ZodType> = keyof z.input<S>;
/** An engine input's fields less the scope (and whatever the route takes from the path). */
type EngineFields<T, Scope extends string = 'agentId'> = Exclude<keyof T, Scope>;

const keys = (schema: z.ZodObject, without: string[] = []) =>
  Object.keys(schema.shape)
    .filter((k) => !without.includes(k))
    .sort();

describe('/openapi.json', () => {
  it('describes every route from the schemas that validate it', async () => {
    const { request, server } = await startServer();
    const reply = await request('GET', '/openapi.json');
    expect(reply.status).toBe(200);
    const doc = reply.body;
    expect(doc).toEqual(JSON.parse(JSON.stringify(server.api.openapi)));
    expect(doc.openapi).toBe('3.1.0');
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods as object).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(server.api.routes.map((r) => `${r.method.toUpperCase()} ${r.path}`).sort());
    expect(new Set(server.api.routes.map((r) => r.operationId)).size).toBe(server.api.routes.length);

    const getMemory = doc.paths['/api/memories/{id}'].get;
    expect(getMemory['x-permission']).toBe('read');
    expect(getMemory.parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string', minLength: 1 } },
      expect.objectContaining({ name: 'agentId', in: 'query', required: false }),
      expect.objectContaining({ name: 'includeDeleted', in: 'query', required: false }),
    ]);
    const remember = doc.paths['/api/memories'].post.requestBody.content['application/json'].schema;
    expect(remember).toMatchObject({ type: 'object', required: ['content'], additionalProperties: false });
    expect(remember.properties.type.enum).toContain('preference');
    expect(doc.paths['/api/imports'].post.requestBody.content).toHaveProperty('application/x-ndjson');
    // A body that only adds an actor and a reason may be left out; the others are required.
    const resolve = doc.paths['/api/notes/{id}/resolve'].post.requestBody;
    expect(resolve.required).toBe(false);
    expect(resolve.content['application/json'].schema).toMatchObject({ type: 'object', additionalProperties: false });
    expect(doc.paths['/api/notes'].post.requestBody.required).toBe(true);
    expect(
      doc.paths['/api/recall'].post.requestBody.content['application/json'].schema.properties.include,
    ).toMatchObject({ type: 'array', items: { enum: ['memories', 'notes'] } });
    // Engine-wide routes take no agent.
    const diagnostics = doc.paths['/api/jobs/diagnostics'].get;
    expect(diagnostics.parameters).toEqual([]);
    expect(diagnostics['x-permission']).toBe('admin');
    expect(doc.components.schemas.Error.properties.error.properties.code.enum).toEqual([...HTTP_ERROR_CODES]);
  });

  it("keeps the transport schemas' fields equal to the engine's inputs (less the scope)", () => {
    const config = resolveConfig({});
    const engine = createInputSchemas(config);
    expect(keys(rememberBody)).toEqual(keys(engine.remember, ['agentId']));
    expect(keys(modifyBody)).toEqual(keys(engine.modify, ['agentId']));
    expect(keys(forgetBody)).toEqual(keys(engine.forget, ['agentId']));
    expect(keys(recoverBody)).toEqual(keys(engine.recover, ['agentId']));
    expect(keys(recallBody, ['format'])).toEqual(keys(createRecallSchema(config), ['agentId']));
    expect(keys(appendBody)).toEqual(keys(createTranscriptSchemas(config).append, ['agentId', 'sessionKey']));
    expect(keys(searchTranscriptsBody)).toEqual(keys(createTranscriptSchemas(config).search, ['agentId']));
    expect(addDocumentBody.options.flatMap((o) => keys(o)).sort()).toEqual(
      ['content', 'contentType', 'project', 'project', 'title', 'title', 'url'].sort(),
    );
  });

  // `@memory/engine` exports the notes' and the registry's input types, not their zod schemas, so
  // these checks are on the types: `tsc -b` (part of `npm test`) fails when the engine gains or
  // loses a field the transport does not mirror.
  it("keeps the notes' and the registry's transport fields equal to the engine's inputs (checked by tsc)", () => {
    expectTypeOf<Fields<typeof createNoteBody>>().toEqualTypeOf<EngineFields<CreateNoteInput>>();
    expectTypeOf<Fields<typeof updateNoteBody>>().toEqualTypeOf<EngineFields<UpdateNoteInput, 'agentId' | 'id'>>();
    expectTypeOf<Fields<typeof noteTransitionBody>>().toEqualTypeOf<
      EngineFields<NoteTransitionInput, 'agentId' | 'id'>
    >();
    expectTypeOf<Fields<typeof searchNotesBody>>().toEqualTypeOf<EngineFields<SearchNotesInput>>();
    // The query string spells `entity` as two parameters.
    expectTypeOf<Exclude<Fields<typeof listNotesQuery>, 'entityType' | 'entityRefId'> | 'entity'>().toEqualTypeOf<
      EngineFields<ListNotesInput>
    >();

    type RegistryInput<M extends keyof EngineRegistry> = Parameters<EngineRegistry[M]>[0];
    expectTypeOf<Fields<typeof listCategoriesQuery>>().toEqualTypeOf<EngineFields<RegistryInput<'list'>>>();
    expectTypeOf<Fields<typeof createCategoryBody>>().toEqualTypeOf<EngineFields<CreateCategoryInput>>();
    expectTypeOf<Fields<typeof getCategoryQuery>>().toEqualTypeOf<
      EngineFields<CategoryObjectsInput, 'agentId' | 'id'>
    >();
    expectTypeOf<Fields<typeof updateCategoryBody>>().toEqualTypeOf<
      EngineFields<UpdateCategoryInput, 'agentId' | 'id'>
    >();
    expectTypeOf<Fields<typeof linkBody>>().toEqualTypeOf<EngineFields<LinkInput, 'agentId' | 'id'>>();
    expectTypeOf<Fields<typeof categoriesOfBody>>().toEqualTypeOf<EngineFields<RegistryInput<'categoriesOf'>>>();
    expectTypeOf<Fields<typeof deleteCategoryBody>>().toEqualTypeOf<
      EngineFields<DeleteCategoryInput, 'agentId' | 'id'>
    >();
    // A preview changes nothing, so it records no actor or reason.
    expectTypeOf<Fields<typeof deletePreviewQuery>>().toEqualTypeOf<
      EngineFields<DeleteCategoryInput, 'agentId' | 'id' | 'actor' | 'reason'>
    >();
    expectTypeOf<Fields<typeof mergeCategoryBody>>().toEqualTypeOf<
      EngineFields<MergeCategoryInput, 'agentId' | 'id'>
    >();
    // And at run time, what the types cannot see: the query schemas parse the strings they are given.
    expect(listNotesQuery.parse({ tags: 'a, b', limit: '5' })).toEqual({ tags: ['a', 'b'], limit: 5 });
    expect(listNotesQuery.safeParse({ entityType: 'contact' }).success).toBe(false);
    expect(deletePreviewQuery.parse({ force: 'true' })).toEqual({ force: true });
  });

  it('maps every error code to a status', () => {
    for (const code of HTTP_ERROR_CODES) expect(HTTP_STATUS[code]).toBeGreaterThanOrEqual(400);
    expect(HTTP_STATUS.NOT_FOUND).toBe(404);
    expect(HTTP_STATUS.INVALID_INPUT).toBe(400);
  });
});
