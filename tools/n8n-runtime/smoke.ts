/**
 * Smoke test of the real-n8n runtime and of the n8n library in tools/n8n/.
 *
 *   npx ts-node --transpile-only tools/n8n-runtime/smoke.ts [--keep]
 *
 * 1. installs the runtime (or reuses the cache) via tools/n8n-runtime/install.sh;
 * 2. in a fresh temporary user folder, imports and executes (`n8n execute`) a workflow made of
 *    core nodes only: Manual Trigger -> Set -> Code (the Code node runs in n8n's task runner);
 * 3. if the package is built (dist/nodes/TradingService/TradingService.node.js), installs it the
 *    way users do (npm pack -> .n8n/nodes/node_modules) and checks n8n knows its node type;
 * 4. starts n8n (`n8n start`), waits for readiness, logs in as the env-created owner, runs the
 *    core workflow through the REST API, checks the editor's node-type list, and stops n8n.
 * Prints timings. Exits non-zero on any failure. --keep leaves the temp user folder in place.
 */
import * as fs from 'fs';
import * as path from 'path';
import { executeWorkflow, importWorkflow } from '../n8n/cli';
import { createN8nEnv, createTempUserFolder, removeUserFolder } from '../n8n/environment';
import { PACKAGE_NAME, packAndInstallPackage } from '../n8n/package';
import { getNodeItems } from '../n8n/run-data';
import { REPO_ROOT, ensureRuntime } from '../n8n/runtime';
import { startN8n, type N8nInstance } from '../n8n/server';

const timings: Array<[string, number]> = [];
async function timed<T>(label: string, fn: () => Promise<T>): Promise<T> {
	const t = Date.now();
	try {
		return await fn();
	} finally {
		const ms = Date.now() - t;
		timings.push([label, ms]);
		log(`${label}: ${(ms / 1000).toFixed(1)} s`);
	}
}
function log(msg: string): void {
	process.stderr.write(`[smoke] ${msg}\n`);
}
function assert(cond: unknown, msg: string): asserts cond {
	if (!cond) throw new Error(`assertion failed: ${msg}`);
}

const CORE_WORKFLOW = {
	id: 'smokeCoreNodes01',
	name: 'Smoke: core nodes',
	active: false,
	settings: { executionOrder: 'v1' },
	connections: {
		'Manual Trigger': { main: [[{ node: 'Set', type: 'main', index: 0 }]] },
		Set: { main: [[{ node: 'Code', type: 'main', index: 0 }]] },
	},
	nodes: [
		{
			id: '7b0c3a4e-0000-4000-8000-000000000001',
			name: 'Manual Trigger',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
		{
			id: '7b0c3a4e-0000-4000-8000-000000000002',
			name: 'Set',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			position: [220, 0],
			parameters: {
				assignments: {
					assignments: [
						{ id: 'a1', name: 'greeting', value: 'hello from n8n', type: 'string' },
						{ id: 'a2', name: 'answer', value: '={{ 40 + 2 }}', type: 'number' },
					],
				},
				options: {},
			},
		},
		{
			id: '7b0c3a4e-0000-4000-8000-000000000003',
			name: 'Code',
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			position: [440, 0],
			parameters: {
				jsCode:
					'const base = $input.first().json;\nreturn [1, 2, 3].map((i) => ({ json: { ...base, i, doubled: base.answer * i } }));',
			},
		},
	],
	pinData: {},
};

/** The package's main node name (description.name), read from the built class. */
function builtNodeName(): string {
	const file = path.join(REPO_ROOT, 'dist', 'nodes', 'TradingService', 'TradingService.node.js');
	try {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const mod = require(file) as Record<
			string,
			new () => { description: { name: string; defaultVersion?: number } }
		>;
		const Ctor = mod.TradingService ?? Object.values(mod)[0];
		return new Ctor().description.name;
	} catch (err) {
		log(
			`could not read the node's name from ${file} (${(err as Error).message}); assuming tradingService`,
		);
		return 'tradingService';
	}
}

function packageWorkflow(nodeType: string) {
	return {
		id: 'smokePackageNode1',
		name: 'Smoke: package node loads',
		active: false,
		settings: { executionOrder: 'v1' },
		connections: {
			'Manual Trigger': { main: [[{ node: 'Trading Service', type: 'main', index: 0 }]] },
		},
		nodes: [
			{
				id: '7b0c3a4e-0000-4000-8000-000000000011',
				name: 'Manual Trigger',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: '7b0c3a4e-0000-4000-8000-000000000012',
				name: 'Trading Service',
				type: nodeType,
				typeVersion: 1,
				position: [220, 0],
				parameters: {},
			},
		],
		pinData: {},
	};
}

async function main(): Promise<void> {
	const keep = process.argv.includes('--keep');
	const t0 = Date.now();
	await timed('runtime install (install.sh; cached if stamp matches)', () => ensureRuntime());

	const userFolder = await createTempUserFolder('n8n-smoke-');
	log(`user folder: ${userFolder}`);
	let n8n: N8nInstance | undefined;
	try {
		const hasDist = fs.existsSync(
			path.join(REPO_ROOT, 'dist', 'nodes', 'TradingService', 'TradingService.node.js'),
		);
		let nodeType: string | undefined;
		if (hasDist) {
			const installed = await timed('npm pack + install package into .n8n/nodes', () =>
				packAndInstallPackage(userFolder),
			);
			nodeType = `${PACKAGE_NAME}.${builtNodeName()}`;
			log(
				`installed ${installed.name}@${installed.version} into ${installed.packageDir}; node type ${nodeType}`,
			);
		} else {
			log(
				'dist/ has no TradingService node: skipping the community-package check (run `npm run build` first)',
			);
		}

		const env = await createN8nEnv({ userFolder });
		await timed('n8n import:workflow (core nodes)', () => importWorkflow(env, CORE_WORKFLOW));

		const result = await timed('n8n execute (core nodes)', () =>
			executeWorkflow(env, CORE_WORKFLOW.id),
		);
		if (!result.ok) {
			throw new Error(
				`n8n execute failed (exit ${result.exitCode}): ${JSON.stringify(result.error)}\n${result.stdout.slice(-3000)}\n${result.stderr.slice(-3000)}`,
			);
		}
		const items = getNodeItems(result.run, 'Code');
		console.log('Code node output items:');
		for (const item of items) console.log('  ' + JSON.stringify(item));
		assert(items.length === 3, 'Code emits 3 items');
		assert(
			items[2].greeting === 'hello from n8n' && items[2].doubled === 126,
			'Set + expression + Code values',
		);

		if (nodeType) {
			const wf = packageWorkflow(nodeType);
			await importWorkflow(env, wf);
			const res = await timed('n8n execute (package node, no parameters)', () =>
				executeWorkflow(env, wf.id),
			);
			const text = res.stdout + res.stderr;
			assert(
				!/Unrecognized node type/i.test(text),
				`n8n must know ${nodeType}:\n${text.slice(-3000)}`,
			);
			assert(
				res.run !== undefined,
				`run data printed for the package workflow:\n${text.slice(-3000)}`,
			);
			const ran = Object.keys(res.run.data.resultData.runData);
			log(
				`package workflow: exit ${res.exitCode}, nodes run: ${ran.join(', ')}` +
					(res.error
						? `, error (expected without parameters/credentials): ${res.error.message}`
						: ''),
			);
			assert(
				ran.includes('Trading Service') || res.error?.node?.name === 'Trading Service',
				'the package node was reached',
			);
		}

		n8n = await timed('n8n start (until /healthz/readiness)', () => startN8n(env));
		log(`n8n ready at ${n8n.baseUrl} (pid ${n8n.pid})`);
		const cookie = await timed('login', () => n8n!.login());
		const exec = await timed('REST run from Manual Trigger', () =>
			n8n!.runWorkflowFromTrigger(cookie, CORE_WORKFLOW.id, 'Manual Trigger'),
		);
		const restItems = getNodeItems({ data: exec.data! }, 'Code');
		log(`REST execution ${exec.id}: status ${exec.status}, ${restItems.length} items from Code`);
		assert(exec.status === 'success' && restItems.length === 3, 'REST manual run succeeds');

		const types = await n8n.request<Array<{ name: string }>>('GET', '/types/nodes.json', {
			cookie,
		});
		assert(types.status === 200 && Array.isArray(types.body), 'GET /types/nodes.json');
		log(`editor knows ${types.body.length} node types`);
		if (nodeType) {
			const ours = types.body
				.filter((t) => t.name.startsWith(PACKAGE_NAME + '.'))
				.map((t) => t.name);
			log(`package node types in the editor: ${ours.join(', ')}`);
			assert(ours.includes(nodeType), `${nodeType} listed in /types/nodes.json`);
		}

		await timed('n8n stop', () => n8n!.stop());
		n8n = undefined;
	} finally {
		if (n8n) await n8n.stop();
		if (keep) log(`kept ${userFolder}`);
		else await removeUserFolder(userFolder);
	}
	log(`total ${((Date.now() - t0) / 1000).toFixed(1)} s`);
	console.log('\nTimings:');
	for (const [label, ms] of timings)
		console.log(`  ${(ms / 1000).toFixed(1).padStart(6)} s  ${label}`);
	console.log('\nSMOKE OK');
}

main().catch((err) => {
	console.error(`SMOKE FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
	process.exitCode = 1;
});
