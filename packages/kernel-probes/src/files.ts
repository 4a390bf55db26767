/** Where the committed recording and the fidelity document live. */
import { fileURLToPath } from "node:url";

/** The committed recording of SiYuan 3.7.3. */
export const RECORDING_FILE = fileURLToPath(
  new URL("../recordings/siyuan-3.7.3.json", import.meta.url),
);

/** The document whose accepted-differences table the comparison reads. */
export const FIDELITY_DOC = fileURLToPath(new URL("../../../docs/fidelity.md", import.meta.url));
