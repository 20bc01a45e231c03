import { findNodeAtLocation, parseTree, type JSONPath, type Node } from 'jsonc-parser';

/**
 * Minimal edits of a JSON (or JSONC) text by path, for the files of agent CLIs (PROTOCOL.md T45).
 * Only the bytes of the value set, inserted or removed change: neighbours keep their formatting,
 * numbers their digits, comments their place and lines their endings, and removing what was
 * inserted gives the same bytes back. jsonc-parser finds the nodes; the edits are made here
 * because its own formatter re-lays out whole lines around an insertion.
 */

export interface JsonTextStyle {
  /** One level of indentation, as the file writes it. */
  unit: string;
  eol: string;
}

/** The file's own indentation unit and line ending (two spaces and LF when it shows none). */
export function jsonTextStyle(text: string): JsonTextStyle {
  return { unit: /\n([ \t]+)["}\]/]/.exec(text)?.[1] ?? '  ', eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

/** The whitespace that starts the line `offset` is on. */
function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))![0];
}

/** Whether `offset` is the first non-blank character of its line. */
function startsLine(text: string, offset: number): boolean {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return text.slice(start, offset).trim() === '';
}

/** A value printed at `indent`, multi-line in the file's style. */
function printValue(value: unknown, indent: string, style: JsonTextStyle): string {
  return JSON.stringify(value, null, style.unit).replace(/\n/g, `${style.eol}${indent}`);
}

function splice(text: string, from: number, to: number, insert: string): string {
  return text.slice(0, from) + insert + text.slice(to);
}

/** The node a property or element occupies as a child of its container (a property's node is the key-value pair). */
function childNode(value: Node): Node {
  return value.parent?.type === 'property' ? value.parent : value;
}

/** Inserts `member` (a printed `"key": value` or element) as the last child of `container`. */
function appendChild(text: string, container: Node, print: (indent: string, inline: boolean) => string, style: JsonTextStyle): string {
  const children = container.children ?? [];
  const last = children[children.length - 1];
  if (last !== undefined) {
    if (startsLine(text, last.offset)) {
      const indent = lineIndent(text, last.offset);
      return splice(text, last.offset + last.length, last.offset + last.length, `,${style.eol}${indent}${print(indent, false)}`);
    }
    // A container written on one line gets its new member on that line too.
    return splice(text, last.offset + last.length, last.offset + last.length, `, ${print('', true)}`);
  }
  const outer = lineIndent(text, container.offset);
  const inner = outer + style.unit;
  return splice(text, container.offset + 1, container.offset + container.length - 1, `${style.eol}${inner}${print(inner, false)}${style.eol}${outer}`);
}

/** Removes a child node with the separator that belongs to it (the comma before it, or after it when it is first). */
function removeChild(text: string, node: Node): string {
  const container = node.parent!;
  const siblings = container.children!;
  const at = siblings.indexOf(node);
  if (siblings.length === 1) return splice(text, container.offset + 1, container.offset + container.length - 1, '');
  if (at > 0) {
    const prev = siblings[at - 1]!;
    return splice(text, prev.offset + prev.length, node.offset + node.length, '');
  }
  return splice(text, node.offset, siblings[1]!.offset, '');
}

/**
 * The text with the value at `path` set (`undefined` removes it). Missing objects along the path
 * are created; for an array, `path`'s last step may be its length, which appends.
 */
export function setJsonText(text: string, path: JSONPath, value: unknown, style: JsonTextStyle = jsonTextStyle(text)): string {
  const root = parseTree(text);
  if (root === undefined) throw new Error('not a JSON text');
  const node = findNodeAtLocation(root, path);
  if (node !== undefined) {
    if (value === undefined) return removeChild(text, childNode(node));
    const indent = lineIndent(text, childNode(node).offset);
    return splice(text, node.offset, node.offset + node.length, printValue(value, indent, style));
  }
  if (value === undefined) return text;
  // The deepest container that exists, and what must be built under it.
  let depth = path.length - 1;
  let container = findNodeAtLocation(root, path.slice(0, depth));
  while (container === undefined && depth > 0) container = findNodeAtLocation(root, path.slice(0, --depth));
  if (container === undefined) throw new Error('no container');
  let built: unknown = value;
  for (let i = path.length - 1; i > depth; i--) built = { [path[i] as string]: built };
  const step = path[depth]!;
  if (container.type === 'object') {
    return appendChild(text, container, (indent, inline) => `${JSON.stringify(String(step))}: ${inline ? JSON.stringify(built) : printValue(built, indent, style)}`, style);
  }
  if (container.type === 'array' && step === (container.children ?? []).length) {
    return appendChild(text, container, (indent, inline) => (inline ? JSON.stringify(built) : printValue(built, indent, style)), style);
  }
  throw new Error(`cannot set ${JSON.stringify(path)}: ${container.type} is in the way`);
}
