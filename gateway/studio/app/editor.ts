import { defaultKeymap, history, historyKeymap, isolateHistory } from "@codemirror/commands";
import { yaml } from "@codemirror/lang-yaml";
import {
  bracketMatching,
  defaultHighlightStyle,
  indentOnInput,
  syntaxHighlighting,
} from "@codemirror/language";
import {
  type Diagnostic,
  forceLinting,
  linter,
  lintGutter,
  setDiagnostics,
} from "@codemirror/lint";
import { Compartment, EditorState, type Text, Transaction } from "@codemirror/state";
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from "@codemirror/view";
import { load } from "@movement-detection/movespec";

/** A validation issue as the loader and the validate route report it (1-based line, column). */
export interface PositionedIssue {
  readonly message: string;
  readonly severity: "error" | "warning";
  readonly code?: string;
  readonly line?: number;
  readonly column?: number;
  readonly path?: string;
}

export interface YamlEditor {
  readonly view: EditorView;
  /** Puts the cursor at a 1-based line and column, in view, and the focus in the editor. */
  goTo(line: number, column?: number): void;
  text(): string;
  setText(text: string): void;
  /** Replaces the text as one edit of its own, which undo takes back. */
  replaceText(text: string): void;
  setReadOnly(readOnly: boolean): void;
  /** Shows issues from elsewhere (the validate route, a refused version) until the next edit. */
  showIssues(issues: readonly PositionedIssue[]): void;
}

/**
 * The YAML editor: CodeMirror 6 with its YAML mode. As you type (debounced), the MoveSpec is
 * loaded by the same loader the service validates with (movespec/load), in the page, and its
 * issues become markers at their line and column; `onIssues` gets them for the problems list.
 */
export function createYamlEditor(options: {
  parent: HTMLElement;
  labelledBy: string;
  onChange: () => void;
  onIssues: (issues: readonly PositionedIssue[]) => void;
  keys: { save: () => void; run: () => void };
  /** False while no MoveSpec is open: an empty editor is nothing to find fault with. */
  active: () => boolean;
}): YamlEditor {
  /** The line last typed on (1-based), to name it when YAML blames the lines after it. */
  let editedLine: number | undefined;
  const validate = linter(
    (view) => {
      if (!options.active()) {
        options.onIssues([]);
        return [];
      }
      const text = view.state.doc.toString();
      const result = load(text);
      const indentation = indentationIssue(text, result.errors, editedLine);
      const issues = [...(indentation ? [indentation] : []), ...result.errors, ...result.warnings];
      options.onIssues(issues);
      return issues.map((issue) => toDiagnostic(view.state.doc, issue));
    },
    { delay: 350 },
  );
  const readOnly = new Compartment();
  const undoHistory = new Compartment();
  const view = new EditorView({
    parent: options.parent,
    state: EditorState.create({
      doc: "",
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        undoHistory.of(history()),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        highlightActiveLine(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        yaml(),
        lintGutter(),
        validate,
        readOnly.of(EditorState.readOnly.of(false)),
        EditorState.tabSize.of(2),
        keymap.of([
          {
            key: "Mod-s",
            preventDefault: true,
            run: () => {
              options.keys.save();
              return true;
            },
          },
          {
            key: "Mod-Enter",
            preventDefault: true,
            run: () => {
              options.keys.run();
              return true;
            },
          },
          // Tab is left alone: it moves the focus on (keyboard users must be able to leave).
          ...defaultKeymap,
          ...historyKeymap,
        ]),
        EditorView.contentAttributes.of({ "aria-labelledby": options.labelledBy }),
        // CodeMirror's styles are <style> elements: the CSP lets them in by this page's nonce.
        EditorView.cspNonce.of(
          document.querySelector<HTMLMetaElement>('meta[name="style-nonce"]')?.content ?? "",
        ),
        typeOverLines,
        EditorView.updateListener.of((update) => {
          if (!update.docChanged) return;
          if (update.transactions.some((t) => t.isUserEvent("input") || t.isUserEvent("delete")))
            editedLine = update.state.doc.lineAt(update.state.selection.main.head).number;
          options.onChange();
        }),
      ],
    }),
  });
  return {
    view,
    goTo(lineNumber, column = 1) {
      const doc = view.state.doc;
      const line = doc.line(Math.min(Math.max(lineNumber, 1), doc.lines));
      const at = Math.min(line.from + Math.max(column - 1, 0), line.to);
      view.dispatch({ selection: { anchor: at }, scrollIntoView: true });
      view.focus();
    },
    text: () => view.state.doc.toString(),
    setText(text) {
      editedLine = undefined;
      // Not an edit to undo: undo must never bring back the previous MoveSpec's text into this
      // one (and Save write it to this draft). The history is emptied by taking it out and
      // putting it back.
      view.dispatch({
        changes: { from: 0, to: view.state.doc.length, insert: text },
        annotations: Transaction.addToHistory.of(false),
      });
      view.dispatch({ effects: undoHistory.reconfigure([]) });
      view.dispatch({ effects: undoHistory.reconfigure(history()) });
      forceLinting(view);
    },
    replaceText(text) {
      view.dispatch({
        changes: { from: 0, to: view.state.doc.length, insert: text },
        annotations: isolateHistory.of("full"),
      });
    },
    setReadOnly(value) {
      view.dispatch({ effects: readOnly.reconfigure(EditorState.readOnly.of(value)) });
    },
    showIssues(issues) {
      view.dispatch(
        setDiagnostics(
          view.state,
          issues.map((issue) => toDiagnostic(view.state.doc, issue)),
        ),
      );
      options.onIssues(issues);
    },
  };
}

/**
 * Typing over a selection that spans lines is done here, not by the browser. Chromium's own
 * editing deletes across the lines by merging their elements, and to keep the moved text looking
 * the same it gives it an inline `style` attribute: the CSP blocks that (a style attribute takes
 * no nonce) and reports a violation. CodeMirror already does the same for a composition started
 * over such a selection; a plain keystroke it leaves to the browser.
 */
const typeOverLines = EditorView.domEventHandlers({
  beforeinput(event, view) {
    if (event.inputType !== "insertText" || event.data === null || view.state.readOnly)
      return false;
    const { main } = view.state.selection;
    if (
      main.empty ||
      view.state.doc.lineAt(main.from).number === view.state.doc.lineAt(main.to).number
    )
      return false;
    event.preventDefault();
    view.dispatch(view.state.replaceSelection(event.data), {
      userEvent: "input.type",
      scrollIntoView: true,
    });
    return true;
  },
});

/** From a 1-based line and column to a range: the word there (or the whole line without one). */
export function toDiagnostic(doc: Text, issue: PositionedIssue): Diagnostic {
  const lineNumber = Math.min(Math.max(issue.line ?? 1, 1), doc.lines);
  const line = doc.line(lineNumber);
  const from = Math.min(line.from + Math.max((issue.column ?? 1) - 1, 0), line.to);
  const rest = doc.sliceString(from, line.to);
  const word = /^\S+/.exec(rest)?.[0].length ?? 0;
  const to = word > 0 ? from + word : line.to > line.from ? line.to : from;
  return {
    from: word > 0 ? from : line.from,
    to,
    severity: issue.severity,
    source: issue.code,
    message: issue.message,
  };
}

const indentOf = (line: string) => /^ */.exec(line)?.[0].length ?? 0;
const blank = (line: string | undefined) => line === undefined || /^\s*(#.*)?$/.test(line);

/**
 * YAML reports an over-indented line where the structure breaks, often lines after it (it takes
 * the line as the start of a nested mapping), and says nothing at the line itself. When the text
 * has YAML syntax errors, none of them on the line last typed on, and that line is indented
 * unlike both its neighbours (the nearest lines with content above and below), this names it.
 */
export function indentationIssue(
  text: string,
  errors: readonly PositionedIssue[],
  editedLine: number | undefined,
): PositionedIssue | undefined {
  if (editedLine === undefined) return undefined;
  const syntax = errors.filter((e) => e.code === "YAML_SYNTAX");
  if (syntax.length === 0 || syntax.some((e) => e.line === editedLine)) return undefined;
  const lines = text.split("\n");
  const line = lines[editedLine - 1];
  if (blank(line)) return undefined;
  let above = editedLine - 2;
  while (above >= 0 && blank(lines[above])) above--;
  let below = editedLine;
  while (below < lines.length && blank(lines[below])) below++;
  const own = indentOf(line);
  const around = [above >= 0 ? lines[above] : undefined, lines[below]]
    .filter((l): l is string => l !== undefined)
    .map(indentOf);
  if (around.length === 0 || around.includes(own)) return undefined;
  return {
    code: "YAML_INDENTATION",
    severity: "error",
    line: editedLine,
    column: 1,
    message: `this line is indented ${own} spaces, unlike the lines around it (${[...new Set(around)].join(" and ")}): YAML then misreads the lines after it, so the syntax errors below may come from here`,
  };
}
