/** Notebook operations of the workspace: list, open/close, create, rename, remove. */
import { DEFAULT_NOTEBOOK_SORT_MODE, MAX_TITLE_CHARS } from "./constants.js";
import { kernelError } from "./errors.js";
import { type BoxConf, type Notebook, WorkspaceIndex } from "./workspace-index.js";

/** A new notebook conf with the kernel's defaults. */
export function defaultBoxConf(name: string): BoxConf {
  return {
    name,
    sort: 0,
    icon: "",
    closed: true,
    refCreateSaveBox: "",
    refCreateSavePath: "",
    docCreateSaveBox: "",
    docCreateSavePath: "",
    dailyNoteSavePath: '/daily note/{{now | date "2006/01"}}/{{now | date "2006-01-02"}}',
    dailyNoteTemplatePath: "",
    sortMode: DEFAULT_NOTEBOOK_SORT_MODE,
    encrypted: false,
    boxCrypt: null,
  };
}

/** The notebook layer of `Workspace`. */
export class WorkspaceNotebooks extends WorkspaceIndex {
  /** Notebooks sorted by `sort` ascending (custom workspace order), all of them. */
  listNotebooks(): Notebook[] {
    return [...this.notebooks.values()].sort((a, b) => a.conf.sort - b.conf.sort);
  }

  /**
   * The notebook, or -1 "Query notebook failed" when unknown or closed (`data` null; a rename
   * answers `closeTimeout: 5000`, as the kernel's renameNotebook does).
   */
  openBox(id: string, closeTimeout?: number): Notebook {
    const box = this.notebooks.get(id);
    if (!box || box.conf.closed) {
      throw kernelError(
        -1,
        "Query notebook failed",
        closeTimeout === undefined ? null : { closeTimeout },
      );
    }
    return box;
  }

  /** Creates an open notebook listed first (sort 0), renumbering the others 1..n. */
  createNotebook(name: string, id: string = this.newId()): Notebook {
    if ([...name].length > MAX_TITLE_CHARS) {
      throw kernelError(-1, "Maximum length is limited to 512 characters", { closeTimeout: 5000 });
    }
    this.listNotebooks().forEach((b, i) => {
      b.conf.sort = i + 1;
      this.dirtyBoxes.add(b.id);
    });
    const conf = defaultBoxConf(name);
    conf.closed = false;
    const box: Notebook = { id, conf, sortMap: {} };
    this.notebooks.set(id, box);
    this.dirtyBoxes.add(id);
    this.version++;
    return box;
  }

  /** Removes a notebook and every document in it. */
  removeNotebook(id: string): void {
    if (!this.notebooks.has(id)) return;
    for (const doc of [...this.docs.values()]) if (doc.box === id) this.dropDoc(doc.id);
    this.notebooks.delete(id);
    this.removedBoxes.add(id);
    this.dirtyBoxes.delete(id);
    this.version++;
  }

  /** Opens or closes a notebook; closing drops its SQL rows, opening re-indexes them. */
  setClosed(id: string, closed: boolean): void {
    const box = this.notebooks.get(id);
    if (!box) return;
    box.conf.closed = closed;
    for (const doc of this.docs.values()) {
      if (doc.box !== id) continue;
      if (closed) this.removedDocs.add(doc.id);
      else this.dirtyDocs.add(doc.id);
    }
    this.dirtyBoxes.add(id);
    this.version++;
  }

  /** Renames an open notebook. */
  renameNotebook(id: string, name: string): void {
    const box = this.openBox(id, 5000);
    if ([...name].length > MAX_TITLE_CHARS) {
      throw kernelError(-1, "Maximum length is limited to 512 characters", { closeTimeout: 5000 });
    }
    box.conf.name = name;
    this.dirtyBoxes.add(id);
    this.version++;
  }
}
