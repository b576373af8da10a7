import { isWellFormedText } from './text.js';

// Character classes the input rules share. Default-ignorable code points (zero-width spaces and
// joiners, bidi marks, variation selectors, the Hangul fillers, soft hyphens...) render as nothing,
// so text made of them, of whitespace, of control and format characters or of punctuation says
// nothing a reader can see.

/** A letter, digit or symbol (emoji and currency signs are symbols) that is not default-ignorable. */
const MEANINGFUL = /(?!\p{Default_Ignorable_Code_Point})[\p{L}\p{N}\p{S}]/u;

/** A character that shows: anything but whitespace, control, format, surrogate or default-ignorable. */
const VISIBLE = /(?![\p{Default_Ignorable_Code_Point}])[^\p{White_Space}\p{Cc}\p{Cf}\p{Cs}]/u;

/** Control characters other than tab and line feed (free text may hold those). */
const CONTROL_IN_TEXT = /[\u0000-\u0008\u000b-\u001f\u007f]/u;
/** Every control character (C0, DEL, C1): identifiers hold none. */
const ANY_CONTROL = /\p{Cc}/u;

/**
 * Bidirectional formatting characters (embeddings, overrides, isolates and marks). In an identifier
 * they make one string display as another (the "Trojan Source" trick), so identifiers refuse them.
 */
const BIDI_CONTROL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/** True when `text` holds at least one letter, digit or symbol (not only punctuation or invisible characters). */
export function hasMeaningfulText(text: string): boolean {
  return MEANINGFUL.test(text);
}

/** True when `text` holds at least one character that shows (punctuation counts). */
export function hasVisibleText(text: string): boolean {
  return VISIBLE.test(text);
}

/** True when `text` holds a control character other than tab and line feed. */
export function hasControlCharacter(text: string): boolean {
  return CONTROL_IN_TEXT.test(text);
}

/** True when `text` holds a bidirectional formatting character. */
export function hasBidiControl(text: string): boolean {
  return BIDI_CONTROL.test(text);
}

/**
 * Why `text` cannot be stored as content (a memory, a document), or undefined when it can: it must
 * be well-formed Unicode (SQLite stores UTF-8; a lone surrogate would come back as U+FFFD) and hold
 * a letter, digit or symbol, so content made only of whitespace, punctuation, NUL, zero-width or
 * bidi characters is refused.
 */
export function contentProblem(text: string): string | undefined {
  if (!isWellFormedText(text)) return 'must be well-formed Unicode (it holds a lone surrogate)';
  if (!hasMeaningfulText(text))
    return 'must hold a letter, digit or symbol (not only whitespace, punctuation, control, zero-width or bidi characters)';
  return undefined;
}

/**
 * Why `text` cannot be an identifier chosen by a host (an agent id, a session key), or undefined
 * when it can: well-formed Unicode, no control characters (not even tab or line feed), no bidi
 * formatting characters, and something visible.
 */
export function identifierProblem(text: string): string | undefined {
  if (!isWellFormedText(text)) return 'must be well-formed Unicode (it holds a lone surrogate)';
  if (ANY_CONTROL.test(text)) return 'must not contain control characters';
  if (hasBidiControl(text)) return 'must not contain bidirectional formatting characters';
  if (!hasVisibleText(text)) return 'must hold a visible character';
  return undefined;
}

/**
 * Why `text` cannot be a label (a tag, a project, a reason), or undefined when it can: well-formed
 * Unicode, no control characters other than tab and line feed, and something visible. Bidi marks
 * are allowed: labels are free text in any script.
 */
export function labelProblem(text: string): string | undefined {
  if (!isWellFormedText(text)) return 'must be well-formed Unicode (it holds a lone surrogate)';
  if (hasControlCharacter(text)) return 'must not contain control characters';
  if (!hasVisibleText(text)) return 'must hold a visible character';
  return undefined;
}
