/**
 * Table text on a phone (issue 25, defect 2). A table is as wide as its widest unbreakable word, and a wider table
 * scrolls sideways inside its card, taking its last column (Remove, the trash icon) off the screen. An address has
 * no space to wrap at, and a user who has not given a name is listed under theirs: such text may break anywhere.
 * Ordinary names keep breaking between words only (breaking them anywhere would split "Bartholomew" mid-word).
 */

/** Longer than this without a space, a word cannot share a phone's table row with an email and a button. */
const LONGEST_WHOLE_WORD = 16;

/** The class for a cell's text: `wrap-anywhere` for an address or any overlong word, nothing otherwise. */
export function wrapClass(text: string): string {
  return text.includes('@') || new RegExp(`\\S{${LONGEST_WHOLE_WORD + 1},}`).test(text) ? 'wrap-anywhere' : '';
}
