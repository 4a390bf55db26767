/** The `demo` seed: two notebooks, nested documents in custom order, refs, headings, lists, attributes. */
import type { Workspace } from "./workspace.js";

/** Fixed IDs of the demo seed, for tests and the demo script. */
export const DEMO_IDS = {
  notebookResearch: "20260101120000-nbresch",
  notebookPersonal: "20260101120000-nbperso",
  docPlan: "20260101120100-docplan",
  docMilestones: "20260101120300-docmile",
  docMeeting: "20260101120200-docmeet",
  docJournal: "20260101120400-docjrnl",
  docReading: "20260101120500-docread",
  headingGoals: "20260101120101-hgoals1",
  paragraphGoals: "20260101120102-pgoals1",
  headingTasks: "20260101120103-htasks1",
  listTasks: "20260101120104-ltasks1",
  itemTaskParser: "20260101120105-itask01",
  paragraphTaskParser: "20260101120106-ptask01",
  itemTaskContract: "20260101120107-itask02",
  paragraphTaskContract: "20260101120108-ptask02",
  paragraphStatus: "20260101120109-pstatus",
  paragraphDecision: "20260101120201-pdecisn",
  blockquoteMeeting: "20260101120202-bquote1",
  paragraphQuote: "20260101120203-pquote1",
  paragraphMilestones: "20260101120301-pmiles1",
  listMilestones: "20260101120302-lmiles1",
  headingJournal: "20260101120401-hjrnl01",
  paragraphJournal: "20260101120402-pjrnl01",
  codeJournal: "20260101120403-cjrnl01",
  mathJournal: "20260101120404-mjrnl01",
  listReading: "20260101120501-lread01",
} as const;

const I = DEMO_IDS;

const PLAN = `# Goals
{: id="${I.headingGoals}" updated="20260101120101"}

Ship the **sandbox** with *faithful* behaviour; see ((${I.paragraphDecision} "the decision")).
{: id="${I.paragraphGoals}" updated="20260101120102"}

## Tasks
{: id="${I.headingTasks}" updated="20260101120103"}

* {: id="${I.itemTaskParser}" updated="20260101120105"}[ ] Write the **parser**
  {: id="${I.paragraphTaskParser}" updated="20260101120106"}
* {: id="${I.itemTaskContract}" updated="20260101120107"}[X] Read the contract
  {: id="${I.paragraphTaskContract}" updated="20260101120108"}
{: id="${I.listTasks}" updated="20260101120104"}

Status: draft, owned by Ana. #planning#
{: id="${I.paragraphStatus}" updated="20260101120109" custom-status="draft" custom-owner="ana"}`;

const MILESTONES = `Milestones for the *first* release.
{: id="${I.paragraphMilestones}" updated="20260101120301"}

1. Sandbox kernel
2. Typed client
3. MCP tools
{: id="${I.listMilestones}" updated="20260101120302"}`;

const MEETING = `Decided to use **sql.js** for the index. #decision#
{: id="${I.paragraphDecision}" updated="20260101120201" custom-priority="high"}

> Faithful beats *fast*, but both are ==nice==.
> {: id="${I.paragraphQuote}" updated="20260101120203"}
{: id="${I.blockquoteMeeting}" updated="20260101120202"}`;

const JOURNAL = `## Monday
{: id="${I.headingJournal}" updated="20260101120401"}

Worked on ((${I.paragraphGoals} 'the goals')) and ~~nothing~~ else.
{: id="${I.paragraphJournal}" updated="20260101120402"}

\`\`\`ts
const answer = 42;
\`\`\`
{: id="${I.codeJournal}" updated="20260101120403"}

$$
E = mc^2
$$
{: id="${I.mathJournal}" updated="20260101120404"}`;

const READING = `- [SiYuan](https://b3log.org/siyuan/)
- *Designing Data-Intensive Applications*
{: id="${I.listReading}" updated="20260101120501"}`;

/** Fills an empty workspace with the demo content. */
export function seedDemo(ws: Workspace): void {
  const research = ws.createNotebook("Research", I.notebookResearch);
  const personal = ws.createNotebook("Personal", I.notebookPersonal);
  research.conf.sort = 0;
  personal.conf.sort = 1;
  ws.createDoc(I.notebookResearch, null, "Project Plan", PLAN, { id: I.docPlan });
  ws.createDoc(I.notebookResearch, null, "Meeting Notes", MEETING, { id: I.docMeeting });
  ws.createDoc(I.notebookResearch, I.docPlan, "Milestones", MILESTONES, { id: I.docMilestones });
  ws.createDoc(I.notebookPersonal, null, "Journal", JOURNAL, { id: I.docJournal });
  ws.createDoc(I.notebookPersonal, null, "Reading List", READING, { id: I.docReading });
  // custom order (sort.json) that differs from creation order
  research.sortMap[I.docMeeting] = 1;
  research.sortMap[I.docPlan] = 2;
  personal.sortMap[I.docReading] = 1;
  personal.sortMap[I.docJournal] = 2;
  for (const id of [I.docPlan, I.docMeeting, I.docMilestones, I.docJournal, I.docReading]) {
    const doc = ws.docs.get(id);
    if (doc) doc.root.attrs.updated = id.slice(0, 14);
  }
  ws.setAttrs(I.docPlan, { tags: "planning,demo" });
}
