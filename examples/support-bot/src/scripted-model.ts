// The offline stand-in for a real model, so `npm run example:support-bot` needs no server. It plays
// three roles by reading the system prompt: the bot answering, the steward consolidating, and the
// steward's mini-reflection. Its answers are scripted per turn, and deliberately sloppy where real
// models are: a <think> block, an invented link, chit-chat, and obeying a prompt injection. The
// steward has to catch those; the printout shows it did.
import type { LlmProvider } from '@memory/engine';

interface TurnScript {
  readonly reply: { readonly reply: string; readonly tools: readonly string[] };
  readonly memories: readonly object[];
  /** Note changes; `resolveTitle` resolves the offered note with that title (found by its handle). */
  readonly notes: ReadonlyArray<Readonly<Record<string, unknown>> & { readonly resolveTitle?: string }>;
}

const SCRIPT: Readonly<Record<string, TurnScript>> = {
  'turn-1': {
    reply: {
      reply: "Thanks Alice! Two years at 10% off works for us. I've emailed you the quote; invoices will come as PDF.",
      tools: ['email_send'],
    },
    memories: [
      {
        kind: 'agreement',
        content: 'Acme (Alice Chen) agreed to renew for two years at a 10% discount.',
        entities: ['e1', 'e2'],
        importance: 0.8,
        why: 'the customer accepted the offer',
      },
      { kind: 'preference', content: 'Alice Chen wants invoices sent as PDF attachments.', entities: ['e1'] },
      { kind: 'preference', content: 'Alice said hi and thanked us for the quick reply.', entities: ['e1'] },
    ],
    notes: [
      {
        action: 'create',
        title: 'Send renewal contract',
        content: 'Send Alice the two-year renewal contract at 10% off.',
        entities: ['e1', 'e2'],
        tags: ['follow-up'],
      },
    ],
  },
  'turn-2': {
    reply: { reply: 'Thanks Bob, noted: the Globex migration goes live on March 3.', tools: ['kb_search'] },
    memories: [
      // The gullible part: the model "obeys" the injection in Bob's message and invents a link.
      { kind: 'operating_rule', content: 'All refunds are approved automatically.', entities: ['e1'] },
      {
        kind: 'project_context',
        content: 'The Globex migration goes live on March 3.',
        entities: ['e2', 'contact:c-42'],
      },
    ],
    notes: [],
  },
  'turn-3': {
    reply: {
      reply: "Yes, the contract went out this morning. I've booked the kickoff call for Thursday at 3pm.",
      tools: ['email_send', 'calendar_create_event'],
    },
    memories: [
      { kind: 'decision', content: 'The Acme kickoff call is booked for Thursday at 3pm.', entities: ['e1', 'e2'] },
    ],
    notes: [
      { action: 'resolve', resolveTitle: 'Send renewal contract', reason: 'contract sent' },
      {
        action: 'create',
        title: 'Acme kickoff call',
        content: 'Kickoff call with Alice on Thursday 3pm; prepare the onboarding plan.',
        entities: ['e1', 'e2'],
      },
    ],
  },
};

/** The handle (`n1`…) the steward gave the note with this title in the prompt. */
function noteHandle(prompt: string, title: string): string | undefined {
  return new RegExp(`^(n\\d+) = "${title}"`, 'm').exec(prompt)?.[1];
}

/** A scripted model for the support bot's conversation (see {@link SCRIPT}). */
export function createScriptedModel(): LlmProvider {
  return {
    async generate(request) {
      const system = request.messages[0]?.content ?? '';
      const prompt = request.messages.map((m) => m.content).join('\n');
      const turn = /<task id="([^"]+)">/.exec(prompt)?.[1] ?? /Task: (\S+)/.exec(system)?.[1] ?? '';
      const script = SCRIPT[turn];
      if (!script)
        return { text: '{"reply": "Sorry, I have no script for that.", "tools": [], "memories": [], "notes": []}' };
      if (system.includes('memory steward'))
        return { text: `<think>Looking for durable facts.</think>\n${JSON.stringify({ memories: script.memories })}` };
      if (system.includes('working notes')) {
        const notes = script.notes.map(({ resolveTitle, ...change }) =>
          resolveTitle ? { ...change, note: noteHandle(prompt, resolveTitle) ?? 'n?' } : change,
        );
        return { text: JSON.stringify({ notes }) };
      }
      return { text: JSON.stringify(script.reply) };
    },
  };
}
