/**
 * The query editor (CodeMirror 6): Cypher or JSON, Ctrl/Cmd+Enter runs, completion of the
 * database's names in Cypher.
 */
import { EditorState, Compartment } from '@codemirror/state';
import { EditorView, keymap, lineNumbers, drawSelection, highlightActiveLine, placeholder } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { bracketMatching, syntaxHighlighting, defaultHighlightStyle, indentOnInput } from '@codemirror/language';
import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap } from '@codemirror/autocomplete';
import { json } from '@codemirror/lang-json';
import { cypherCompletion, cypherLanguage, type Vocabulary } from './cypher-language.js';

export type EditorLanguage = 'cypher' | 'json';

export interface QueryEditor {
  readonly view: EditorView;
  text(): string;
  setText(text: string): void;
  setLanguage(language: EditorLanguage): void;
  focus(): void;
}

/**
 * The editor lives in a shadow root: CodeMirror mounts its styles there as a constructed
 * style sheet, which the page's Content-Security-Policy (style-src 'self', no inline
 * styles) allows; in the document itself it would need an inline <style> element.
 */
const look = EditorView.theme({
  '&': { fontSize: '13px', backgroundColor: '#fff', minHeight: '90px' },
  '.cm-content, .cm-gutter': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace' },
  '.cm-scroller': { maxHeight: '30vh', overflow: 'auto' },
  '&.cm-focused': { outline: 'none' },
});

export function createEditor(host: HTMLElement, onRun: () => void, vocabulary: () => Vocabulary): QueryEditor {
  const parent = host.attachShadow({ mode: 'open' });
  const language = new Compartment();
  const modes = {
    cypher: [cypherLanguage, cypherLanguage.data.of({ autocomplete: cypherCompletion(vocabulary) })],
    json: json(),
  };
  const run = () => {
    onRun();
    return true;
  };
  const view = new EditorView({
    parent,
    root: parent,
    state: EditorState.create({
      doc: '',
      extensions: [
        // Before the default keymap, which binds Mod-Enter to "insert blank line".
        keymap.of([
          { key: 'Mod-Enter', run, preventDefault: true },
          { key: 'Shift-Enter', run, preventDefault: true },
        ]),
        lineNumbers(),
        history(),
        drawSelection(),
        highlightActiveLine(),
        indentOnInput(),
        bracketMatching(),
        closeBrackets(),
        autocompletion({ activateOnTyping: true }),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...historyKeymap, ...completionKeymap]),
        placeholder('MATCH (n) RETURN n LIMIT 25   (Ctrl+Enter runs)'),
        language.of(modes.cypher),
        EditorView.lineWrapping,
        look,
      ],
    }),
  });
  return {
    view,
    text: () => view.state.doc.toString(),
    setText(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    setLanguage(lang) {
      view.dispatch({ effects: language.reconfigure(modes[lang]) });
    },
    focus: () => view.focus(),
  };
}
