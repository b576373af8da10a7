// Words that start sentences or name days and months: capitalized, but not the name of anyone.
const NOT_NAMES: ReadonlySet<string> = new Set(
  (
    'i a an the this that these those it its we our you your he she they them his her their my me ' +
    'hi hello hey dear thanks thank please regards best cheers yes no ok okay so but and or if when ' +
    'what who why how where which can could would should will shall may might must do does did is are ' +
    'was were be been have has had let lets also then there here today tomorrow yesterday ' +
    'monday tuesday wednesday thursday friday saturday sunday january february march april may june ' +
    'july august september october november december re fw fwd subject'
  ).split(' '),
);

const RUN = /\p{Lu}[\p{L}\p{M}'’-]*(?:\s+\p{Lu}[\p{L}\p{M}'’-]*){0,3}/gu;
const MAX_NAMES = 16;

/**
 * Capitalized names in a text, for the `names` resolvers: runs of up to four capitalized words
 * ("Alice Chen", "Q3 Marketing Campaign" is missed on purpose: resolvers of kind `keywords` see the
 * whole text), without sentence-starting function words, days and months; each run, then its
 * single words. Deterministic, at most 16.
 */
export function capitalizedNames(text: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const push = (name: string): void => {
    const k = name.toLowerCase();
    if (name.length < 2 || seen.has(k) || out.length >= MAX_NAMES) return;
    seen.add(k);
    out.push(name);
  };
  const runs: string[][] = [];
  for (const match of text.matchAll(RUN)) {
    const words = match[0].split(/\s+/).filter((w) => !NOT_NAMES.has(w.toLowerCase().replace(/['’]s$/, '')));
    if (words.length > 0) runs.push(words.map((w) => w.replace(/['’]s$/, '')));
  }
  for (const words of runs) if (words.length > 1) push(words.join(' '));
  for (const words of runs) for (const w of words) push(w);
  return out;
}
