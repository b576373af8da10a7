// The host's own records. The engine never owns these: it only links memories and notes to them
// ({ type: 'contact', refId: 'c-42' }) and asks the resolvers below which ones a message is about.
import type { StewardResolver } from '@memory/engine';

export const CONTACTS = [
  { id: 'c-42', name: 'Alice Chen', email: 'alice@acme.test', company: 'Acme' },
  { id: 'c-43', name: 'Bob Stone', email: 'bob@globex.test', company: 'Globex' },
] as const;

export const PROJECTS = [
  { id: 'p-7', name: 'Acme renewal', keywords: ['renewal', 'renew', 'contract'] },
  { id: 'p-8', name: 'Globex migration', keywords: ['migration', 'go live', 'cutover'] },
] as const;

/** Sender email → contact: deterministic, so the steward runs it first (confidence 1). */
export const contactBySender: StewardResolver = {
  name: 'crm-contacts',
  kind: 'sender',
  resolve: ({ sender }) =>
    CONTACTS.filter((c) => c.email === sender?.email?.toLowerCase()).map((c) => ({
      type: 'contact',
      refId: c.id,
      label: c.name,
    })),
};

/** Project keywords in the text → project: weaker evidence, so it runs later (confidence 0.6). */
export const projectByKeyword: StewardResolver = {
  name: 'project-keywords',
  kind: 'keywords',
  resolve: ({ text }) => {
    const lower = text.toLowerCase();
    return PROJECTS.filter((p) => p.keywords.some((k) => lower.includes(k))).map((p) => ({
      type: 'project',
      refId: p.id,
      label: p.name,
    }));
  },
};
