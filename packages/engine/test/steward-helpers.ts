import type { GenerateRequest, LlmProvider, Logger } from '@memory/core';
import type { StewardResolver } from '../src/index.js';

/**
 * A scripted model for the steward: each call gets the next answer (text, or a thrown error), and
 * every request is recorded. The answers are the messy kinds real models give.
 */
export function scriptedModel(answers: ReadonlyArray<string | Error>) {
  const requests: GenerateRequest[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const llm: LlmProvider = {
    async generate(request) {
      requests.push(request);
      const answer = answers[requests.length - 1] ?? '{"memories":[],"notes":[]}';
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
      } finally {
        inFlight--;
      }
      if (answer instanceof Error) throw answer;
      return { text: answer };
    },
  };
  return {
    llm,
    requests,
    maxInFlight: () => maxInFlight,
    prompt: (i: number) => requests[i]?.messages.map((m) => m.content).join('\n') ?? '',
  };
}

/** A logger that keeps what it was told. */
export function recordingLogger() {
  const lines: Array<{ level: string; message: string; fields?: unknown }> = [];
  const at =
    (level: string) =>
    (message: string, fields?: unknown): void => {
      lines.push({ level, message, fields });
    };
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, lines, warnings: () => lines.filter((l) => l.level === 'warn').map((l) => l.message) };
}

/** The host's contacts and projects, as a support desk keeps them. */
export const CONTACTS = [
  { id: '42', name: 'Alice Chen', email: 'alice@acme.test' },
  { id: '43', name: 'Bob Stone', email: 'bob@globex.test' },
];
export const PROJECTS = [{ id: '7', name: 'Acme renewal', keywords: ['renewal', 'acme'] }];

/** Two host resolvers over the in-memory lists: sender email → contact, names → contacts, keywords → projects. */
export function hostResolvers(): StewardResolver[] {
  return [
    {
      name: 'crm-sender',
      kind: 'sender',
      resolve: ({ sender }) =>
        CONTACTS.filter((c) => c.email === sender?.email).map((c) => ({ type: 'contact', refId: c.id, label: c.name })),
    },
    {
      name: 'crm-names',
      kind: 'names',
      resolve: ({ names }) =>
        CONTACTS.filter((c) => names.includes(c.name)).map((c) => ({ type: 'contact', refId: c.id, label: c.name })),
    },
    {
      name: 'projects',
      kind: 'keywords',
      resolve: ({ text }) =>
        PROJECTS.filter((p) => p.keywords.some((k) => text.toLowerCase().includes(k))).map((p) => ({
          type: 'project',
          refId: p.id,
          label: p.name,
        })),
    },
  ];
}
