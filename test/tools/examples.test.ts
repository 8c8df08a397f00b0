/**
 * Every workflow in examples/ is run by `npm run demo` and by an e2e test in a real n8n. The list
 * is ALL_EXAMPLES (tools/n8n/examples.ts); the demo has one step per key (DEMO_STEPS, tools/demo.ts)
 * and EXAMPLE_E2E_TESTS names the e2e file of each. Here, fast and without n8n: the folder, the
 * list, the demo's steps and the e2e files agree, so an example cannot be added and forgotten.
 */
import * as fs from 'fs';
import * as path from 'path';

import { DEMO_STEPS } from '../../tools/demo';
import {
	ALL_EXAMPLES,
	EXAMPLE_E2E_TESTS,
	EXAMPLES_DIR,
	exampleFilesInFolder,
	findNode,
	loadAnyExample,
	type AnyExampleKey,
} from '../../tools/n8n/examples';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const keys = Object.keys(ALL_EXAMPLES) as AnyExampleKey[];

describe('examples: every examples/*.json is run by the demo and by an e2e test', () => {
	test('issue 24 housekeeping: every file in examples/ is in ALL_EXAMPLES, and every entry names a file there', () => {
		const listed = keys.map((key) => ALL_EXAMPLES[key].file).sort();
		expect(new Set(listed).size).toBe(listed.length);
		expect(listed).toEqual(exampleFilesInFolder());
		// the folder is not empty by accident (the fills export is the newest)
		expect(listed).toContain('fills-export.json');
	});

	test('each entry matches its file: the workflow id, and the trigger and node names it gives', () => {
		for (const key of keys) {
			const entry = ALL_EXAMPLES[key] as Record<string, string>;
			const workflow = loadAnyExample(key);
			expect({ key, id: workflow.id }).toEqual({ key, id: entry.id });
			for (const [field, name] of Object.entries(entry)) {
				if (field === 'file' || field === 'id') continue;
				expect(() => findNode(workflow, name)).not.toThrow();
			}
		}
		const ids = keys.map((key) => ALL_EXAMPLES[key].id);
		expect(new Set(ids).size).toBe(ids.length);
	});

	test('issue 24 housekeeping: npm run demo has a step for every example, and for nothing else', () => {
		expect(Object.keys(DEMO_STEPS).sort()).toEqual([...keys].sort());
		for (const key of keys) {
			expect(DEMO_STEPS[key].title).not.toBe('');
			expect(typeof DEMO_STEPS[key].run).toBe('function');
		}
	});

	test('issue 24 housekeeping: every example has an e2e test file that exists and names it', () => {
		expect(Object.keys(EXAMPLE_E2E_TESTS).sort()).toEqual([...keys].sort());
		for (const key of keys) {
			const file = path.join(REPO_ROOT, EXAMPLE_E2E_TESTS[key]);
			expect({ key, exists: fs.existsSync(file) }).toEqual({ key, exists: true });
			expect(EXAMPLE_E2E_TESTS[key]).toMatch(/^test\/e2e\/[\w-]+\.e2e\.test\.ts$/);
			const source = fs.readFileSync(file, 'utf8');
			// e.g. EXAMPLES.batchOrders, loadOrderExample('cancelStaleOrders'), V2_EXAMPLES.fillsExport
			expect({ key, named: new RegExp(`[.'"]${key}\\b`).test(source) }).toEqual({
				key,
				named: true,
			});
		}
	});

	test('the examples folder is the one the tools read', () => {
		expect(EXAMPLES_DIR).toBe(path.join(REPO_ROOT, 'examples'));
	});
});
