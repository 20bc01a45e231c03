/**
 * The one shell form the kit writes into agent CLIs' hook entries, and its exact inverse. Every
 * CLI hands a hook's command to `sh -c`, so the kit quotes each word for POSIX shells; reading a
 * command back accepts only what `shellQuote` can produce (bare safe words and single-quoted
 * words), so a command with anything a shell would interpret (`;`, `&&`, `#`, `$(…)`, a redirect,
 * a double quote) is never mistaken for one of the kit's own (PROTOCOL.md T45).
 */

const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** POSIX shell quoting of one word: bare when safe, else single-quoted with `'\''` for each quote. */
export function shellQuote(word: string): string {
  return SAFE.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Words joined by single spaces, each quoted. */
export function shellJoin(words: readonly string[]): string {
  return words.map(shellQuote).join(' ');
}

/**
 * The words of a command written by `shellJoin`, or undefined when the text holds anything else.
 * Round trip: `splitShellWords(shellJoin(w))` equals `w` for every list of non-empty words, and a
 * text this accepts means exactly these words to sh, bash and dash.
 */
export function splitShellWords(command: string): string[] | undefined {
  const words: string[] = [];
  let i = 0;
  while (i < command.length) {
    if (command[i] === ' ') {
      i++;
      continue;
    }
    let word = '';
    let started = false;
    while (i < command.length && command[i] !== ' ') {
      const c = command[i]!;
      if (c === "'") {
        const end = command.indexOf("'", i + 1);
        if (end < 0) return undefined;
        word += command.slice(i + 1, end);
        i = end + 1;
      } else if (c === '\\' && command[i + 1] === "'") {
        word += "'";
        i += 2;
      } else if (SAFE.test(c)) {
        word += c;
        i++;
      } else return undefined;
      started = true;
    }
    if (started) words.push(word);
  }
  return words;
}
