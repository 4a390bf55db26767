/**
 * Render of a 1,000-row database (attribute view): the sandbox bin in a child process, one
 * database with text, number, date, checkbox, select, relation and rollup keys (the relation
 * points at a 100-row database), then renderAttributeView of the first page (the view's 50 rows)
 * and of all 1,000 rows in one page, sequentially over keep-alive HTTP.
 * Run: pnpm exec tsx --conditions=source bench/av.ts  (in packages/siyuan-sandbox)
 */
import { DEMO_IDS } from "../src/index.js";
import { keepAlive, sandboxArgs, send, spawnServer } from "./support.js";

const ROWS = 1_000;
const TARGETS = 100;
const RENDERS = 200;

const sandbox = await spawnServer(sandboxArgs(["--seed", "demo", "--control"]));
const agent = keepAlive(1);

/** POSTs `body` as JSON; the envelope's data, or an error naming the kernel message. */
async function call<T>(path: string, body: unknown): Promise<T> {
  const r = await send(agent, sandbox.port, "POST", path, {}, JSON.stringify(body));
  const env = JSON.parse(r.body.toString("utf8")) as { code: number; msg: string; data: T };
  if (env.code !== 0) throw new Error(`${path}: ${env.msg}`);
  return env.data;
}

interface Render {
  view: { columns: Array<{ id: string; type: string }>; rows: Array<{ id: string }> };
}
let seq = 0;
const keyId = () => `20260404040404-b${String(++seq).padStart(6, "0")}`;

async function database(rows: number, prefix: string): Promise<{ avID: string; items: string[] }> {
  const tx = await call<Array<{ doOperations: Array<{ id: string; data: string }> }>>(
    "/api/block/appendBlock",
    {
      dataType: "markdown",
      data: '<div data-type="NodeAttributeView" data-av-type="table"></div>',
      parentID: DEMO_IDS.docPlan,
    },
  );
  await call("/api/sqlite/flushTransaction", {});
  const op = tx[0]!.doOperations[0]!;
  const avID = /data-av-id="([^"]+)"/.exec(op.data)![1]!;
  await call("/api/av/renderAttributeView", { id: avID, blockID: op.id });
  await call("/api/av/addAttributeViewBlocks", {
    avID,
    srcs: Array.from({ length: rows }, (_, i) => ({
      id: "",
      isDetached: true,
      content: `${prefix} ${i}`,
    })),
  });
  const r = await call<Render>("/api/av/renderAttributeView", { id: avID, pageSize: rows });
  return { avID, items: r.view.rows.map((x) => x.id) };
}

async function addKey(avID: string, keyType: string): Promise<string> {
  const id = keyId();
  await call("/api/av/addAttributeViewKey", {
    avID,
    keyID: id,
    keyName: keyType,
    keyType,
    keyIcon: "",
    previousKeyID: "",
  });
  return id;
}

const targets = await database(TARGETS, "target");
const targetNumber = await addKey(targets.avID, "number");
await call("/api/av/batchSetAttributeViewBlockAttrs", {
  avID: targets.avID,
  values: targets.items.map((itemID, i) => ({
    keyID: targetNumber,
    itemID,
    value: { number: { content: i, isNotEmpty: true } },
  })),
});
const main = await database(ROWS, "row");
const keys = {
  text: await addKey(main.avID, "text"),
  number: await addKey(main.avID, "number"),
  date: await addKey(main.avID, "date"),
  checkbox: await addKey(main.avID, "checkbox"),
  relation: await addKey(main.avID, "relation"),
  rollup: await addKey(main.avID, "rollup"),
};
const select = (
  await call<Array<{ id: string; type: string }>>("/api/av/getAttributeViewKeysByAvID", {
    avID: main.avID,
  })
).find((k) => k.type === "select")!.id;
await call("/api/transactions", {
  reqId: 1,
  transactions: [
    {
      doOperations: [
        {
          action: "updateAttrViewColRelation",
          avID: main.avID,
          id: targets.avID,
          keyID: keys.relation,
          isTwoWay: true,
          backRelationKeyID: keyId(),
          name: "back",
          format: "relation",
        },
        {
          action: "updateAttrViewColRollup",
          avID: main.avID,
          id: keys.rollup,
          parentID: keys.relation,
          keyID: targetNumber,
          data: { calc: { operator: "Sum" } },
        },
      ],
    },
  ],
});
await call("/api/sqlite/flushTransaction", {});
await call("/api/av/batchSetAttributeViewBlockAttrs", {
  avID: main.avID,
  values: main.items.flatMap((itemID, i) => [
    { keyID: keys.text, itemID, value: { text: { content: `note ${i}` } } },
    { keyID: keys.number, itemID, value: { number: { content: i * 1.5, isNotEmpty: true } } },
    {
      keyID: keys.date,
      itemID,
      value: { date: { content: 1767225600000 + i * 86_400_000, isNotEmpty: true } },
    },
    { keyID: keys.checkbox, itemID, value: { checkbox: { checked: i % 2 === 0 } } },
    { keyID: select, itemID, value: { mSelect: [{ content: `opt${i % 5}`, color: "1" }] } },
    {
      keyID: keys.relation,
      itemID,
      value: { relation: { blockIDs: [targets.items[i % TARGETS]!] } },
    },
  ]),
});
const check = await call<Render>("/api/av/renderAttributeView", {
  id: main.avID,
  pageSize: ROWS,
});
if (check.view.rows.length !== ROWS || check.view.columns.length !== 8) {
  throw new Error(
    `unexpected shape: ${check.view.rows.length} rows, ${check.view.columns.length} columns`,
  );
}

/** The sandbox process's CPU time (µs), through the control route. */
const cpu = async (): Promise<number> => {
  const d = await call<{ userMicros: number; systemMicros: number }>("/__sandbox/process-cpu", {});
  return d.userMicros + d.systemMicros;
};

async function time(
  pageSize: number,
): Promise<{ ms: number; perRender: number; cpuPerRender: number }> {
  for (let i = 0; i < 10; i++) {
    await call("/api/av/renderAttributeView", { id: main.avID, pageSize });
  }
  const cpu0 = await cpu();
  const t0 = performance.now();
  for (let i = 0; i < RENDERS; i++) {
    await call("/api/av/renderAttributeView", { id: main.avID, pageSize });
  }
  const ms = performance.now() - t0;
  const cpuMicros = (await cpu()) - cpu0;
  return { ms, perRender: ms / RENDERS, cpuPerRender: cpuMicros / 1000 / RENDERS };
}

const firstPage = await time(-1);
const allRows = await time(ROWS);
sandbox.kill();
agent.destroy();

console.log(
  `node ${process.version}; ${ROWS} rows x 8 keys (relation to ${TARGETS} rows, rollup Sum); all-rows data ${(Buffer.byteLength(JSON.stringify(check)) / 1024).toFixed(0)} KiB`,
);
console.log("| measure | renders | time (ms) | per render (ms) | sandbox CPU per render (ms) |");
console.log("| --- | --- | --- | --- | --- |");
console.log(
  `| renderAttributeView, first page (50 rows) | ${RENDERS} | ${firstPage.ms.toFixed(0)} | ${firstPage.perRender.toFixed(2)} | ${firstPage.cpuPerRender.toFixed(2)} |`,
);
console.log(
  `| renderAttributeView, all ${ROWS} rows in one page | ${RENDERS} | ${allRows.ms.toFixed(0)} | ${allRows.perRender.toFixed(2)} | ${allRows.cpuPerRender.toFixed(2)} |`,
);
