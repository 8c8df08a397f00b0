/**
 * Screenshot of the Trading Service node in n8n's editor, for the README:
 *
 *   npm run screenshot:editor            # builds, installs the n8n runtime (cached), writes docs/editor-order-operations.png
 *   npm run screenshot:editor -- --out /tmp/shot.png
 *
 * Starts the sandbox and a real n8n 2.41.1 with the package installed from `npm pack` and the
 * examples imported, signs in with Debian's chromium (playwright-core; never a browser download),
 * checks the Resource and Operation dropdowns against the node's description, runs the batch-orders
 * example from the editor, and saves the Create Many node's panel with its Operation dropdown open
 * and every Order operation in view (it fails otherwise). The same steps run as a test in
 * test/e2e/editor.e2e.test.ts.
 */
import * as path from 'path';

import { checkEditor, describedOptions, findChromium } from './n8n/editor';
import { loadAllExamples } from './n8n/examples';
import { setUpN8nWithSandbox } from './n8n/fixture';
import { REPO_ROOT } from './n8n/runtime';
import { startN8n, type N8nInstance } from './n8n/server';

function log(message: string): void {
	process.stderr.write(`[screenshot] ${message}\n`);
}

async function main(): Promise<void> {
	const outIndex = process.argv.indexOf('--out');
	const out = path.resolve(
		outIndex > 0
			? process.argv[outIndex + 1]
			: path.join(REPO_ROOT, 'docs', 'editor-order-operations.png'),
	);
	const chromiumPath = findChromium();
	if (!chromiumPath) {
		throw new Error(
			'no chromium found (set CHROMIUM_PATH, or install it: apt-get install -y chromium)',
		);
	}
	log(`chromium: ${chromiumPath}`);
	const fx = await setUpN8nWithSandbox({ prefix: 'n8n-screenshot-', workflows: loadAllExamples() });
	let n8n: N8nInstance | undefined;
	try {
		log('starting n8n');
		n8n = await startN8n(fx.env);
		const result = await checkEditor({ n8n, chromiumPath, screenshotPath: out, log });
		log(`Resource: ${result.resources.join(', ')}`);
		log(`Operation (Account): ${result.accountOperations.join(', ')}`);
		log(`Operation (Order): ${result.orderOperations.join(', ')}`);
		log(`Order operations in the picture: ${result.orderOperationsInScreenshot.join(', ')}`);
		log(`Create Many output: ${result.outputItemsText}`);
		const described = describedOptions();
		const expected = [
			['Resource', result.resources, described.resources],
			['Operation (Account)', result.accountOperations, described.operations.Account],
			['Operation (Order)', result.orderOperations, described.operations.Order],
			[
				'Order operations in the picture',
				result.orderOperationsInScreenshot,
				described.operations.Order,
			],
		] as const;
		for (const [what, got, want] of expected) {
			if (JSON.stringify(got) !== JSON.stringify(want))
				throw new Error(`${what}: expected ${want.join(', ')}; the editor shows ${got.join(', ')}`);
		}
		console.log(out);
	} finally {
		await n8n?.stop();
		await fx.cleanup();
	}
}

main().catch((error: unknown) => {
	process.stderr.write(
		`[screenshot] FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
	);
	process.exitCode = 1;
});
