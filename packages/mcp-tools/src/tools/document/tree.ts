import type { ToolContext } from "../../handler.js";
import type { DocFile } from "../../kernel.js";
import { type DocParent, listChildren } from "../../state/doc-state.js";

/** At most this many documents in one list_tree answer. */
export const LIST_TREE_MAX_NODES = 512;

interface TreeNode {
  readonly id: string;
  readonly title: string;
  readonly children?: TreeNode[];
}

/** Lists a document tree breadth-first down to `depth` levels, capped at {@link LIST_TREE_MAX_NODES}. */
export async function listTree(
  ctx: ToolContext,
  parent: DocParent,
  depth: number,
): Promise<{ tree: TreeNode[]; truncated: boolean }> {
  let budget = LIST_TREE_MAX_NODES;
  let truncated = false;
  const walk = async (p: DocParent, level: number): Promise<TreeNode[]> => {
    const files: DocFile[] = await listChildren(ctx, p);
    const nodes: TreeNode[] = [];
    for (const f of files) {
      if (budget-- <= 0) {
        truncated = true;
        break;
      }
      const node: TreeNode =
        level < depth && f.subFileCount > 0
          ? {
              id: f.id,
              title: f.name,
              children: await walk(
                { id: f.id, notebook: p.notebook, path: f.path, isNotebook: false },
                level + 1,
              ),
            }
          : { id: f.id, title: f.name };
      nodes.push(node);
    }
    return nodes;
  };
  return { tree: await walk(parent, 1), truncated };
}
