/**
 * Direct access to a user folder's SQLite database (`<N8N_USER_FOLDER>/.n8n/database.sqlite`),
 * for what n8n's REST API does not offer. Runs the runtime's Node 24 with n8n's own `sqlite3`
 * module (compiled for it), so nothing here is a dependency of the repository. n8n opens the
 * database in WAL mode, so this may write while n8n runs; do it while the workflow is inactive.
 *
 * Used to stand in for a crash: a workflow's static data written back as it was before its last
 * executions (PATCH /rest/workflows/<id> ignores `staticData` in n8n 2.41.1).
 */
import * as path from 'path';

import type { N8nEnv } from './environment';
import { runProcess } from './processes';
import { requireN8n, type N8nRuntime } from './runtime';

const SCRIPT = `
const [modulePath, file, workflowId, staticData] = process.argv.slice(1);
const sqlite3 = require(modulePath);
const db = new sqlite3.Database(file);
db.run('UPDATE workflow_entity SET staticData = ? WHERE id = ?', [staticData, workflowId], function (error) {
	if (error) { console.error(error.message); process.exitCode = 1; }
	else if (this.changes !== 1) { console.error('rows changed: ' + this.changes); process.exitCode = 1; }
	db.close();
});
`;

/** Sets a workflow's static data (the whole object, e.g. `{ "node:<name>": {...} }`) in the database. */
export async function writeWorkflowStaticData(
	env: N8nEnv,
	workflowId: string,
	staticData: Record<string, unknown>,
	runtime?: N8nRuntime,
): Promise<void> {
	const rt = requireN8n(runtime);
	const file = path.join(env.N8N_USER_FOLDER, '.n8n', 'database.sqlite');
	const result = await runProcess(
		rt.nodeBin,
		[
			'-e',
			SCRIPT,
			path.join(rt.dir, 'node_modules', 'sqlite3'),
			file,
			workflowId,
			JSON.stringify(staticData),
		],
		{ env: { PATH: process.env.PATH ?? '' }, timeoutMs: 30_000 },
	);
	if (result.exitCode !== 0)
		throw new Error(
			`writing the static data of workflow ${workflowId} failed (exit ${result.exitCode}): ${result.stderr}`,
		);
}
