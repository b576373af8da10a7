// A TypeDoc plugin (loaded by scripts/docs.mjs): names each module after the import specifier a
// consumer writes (`@memory/store/testing`) instead of its source path (`store/src/testing`).
// The mapping comes from scripts/docs.mjs in MEMORY_TYPEDOC_MODULE_NAMES.
import { Converter, ReflectionKind } from 'typedoc';

/** @param {import('typedoc').Application} app */
export function load(app) {
  const names = JSON.parse(process.env.MEMORY_TYPEDOC_MODULE_NAMES ?? '{}');
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const reflection of context.project.getReflectionsByKind(ReflectionKind.Module)) {
      const name = names[reflection.name];
      if (typeof name === 'string') reflection.name = name;
    }
  });
}
