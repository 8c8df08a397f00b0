/**
 * Screenshot of the Trading Service node in n8n's editor, for the docs:
 *
 *   npm run screenshot:editor            # builds, installs the n8n runtime (cached), writes docs/editor-symbol-picker.png
 *   npm run screenshot:editor -- --out /tmp/shot.png
 *
 * Starts the sandbox and a real n8n 2.41.1 with the package installed from `npm pack`, the
 * examples and the picker workflows imported, places two open orders in the sandbox, signs in with
 * Debian's chromium (playwright-core; never a browser download), and runs the editor check of
 * tools/n8n/editor.ts: the picture is the version-2 Create node with its Symbol list open, every
 * symbol in view (it fails otherwise). It also checks the Resource and Operation dropdowns against
 * the node's description and that each picker listed something and kept what was picked. The same
 * steps, with every list held against the sandbox, run as test/e2e/editor.e2e.test.ts.
 */
import * as path from 'path';

import {
	checkEditor,
	describedOptions,
	findChromium,
	loadPickerWorkflows,
	seedPickerOrders,
	PICKS,
} from './n8n/editor';
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
			: path.join(REPO_ROOT, 'docs', 'editor-symbol-picker.png'),
	);
	const chromiumPath = findChromium();
	if (!chromiumPath) {
		throw new Error(
			'no chromium found (set CHROMIUM_PATH, or install it: apt-get install -y chromium)',
		);
	}
	log(`chromium: ${chromiumPath}`);
	const fx = await setUpN8nWithSandbox({
		prefix: 'n8n-screenshot-',
		workflows: [...loadAllExamples(), ...loadPickerWorkflows()],
	});
	let n8n: N8nInstance | undefined;
	try {
		log('starting n8n');
		n8n = await startN8n(fx.env);
		const placed = seedPickerOrders(fx.sb);
		const result = await checkEditor({
			n8n,
			chromiumPath,
			screenshotPath: out,
			picks: { ...PICKS, orderId: placed[1].orderId },
			log,
		});
		log(`Resource: ${result.resources.join(', ')}`);
		log(`Operation (Account): ${result.accountOperations.join(', ')}`);
		log(`Operation (Order): ${result.orderOperations.join(', ')}`);
		for (const picker of result.pickers)
			log(`${picker.node} › ${picker.parameter}: ${picker.shown.join(' | ')} -> ${picker.picked}`);
		log(`Symbols in the picture: ${result.symbolsInScreenshot.join(', ')}`);
		log(`Create Many output: ${result.outputItemsText}`);
		const described = describedOptions(1);
		const describedV2 = describedOptions(2);
		const symbols = result.pickers[0].shown;
		const expected = [
			['Resource', result.resources, described.resources],
			['Operation (Account)', result.accountOperations, described.operations.Account],
			['Operation (Order)', result.orderOperations, described.operations.Order],
			['Resource (version 2)', result.v2.resources, describedV2.resources],
			[
				'Operation (Account, version 2)',
				result.v2.accountOperations,
				describedV2.operations.Account,
			],
			['Operation (Order, version 2)', result.v2.orderOperations, describedV2.operations.Order],
			['Symbols in the picture', result.symbolsInScreenshot, symbols],
		] as const;
		for (const [what, got, want] of expected) {
			if (JSON.stringify(got) !== JSON.stringify(want))
				throw new Error(`${what}: expected ${want.join(', ')}; the editor shows ${got.join(', ')}`);
		}
		for (const picker of result.pickers) {
			if (picker.shown.length === 0 || picker.fieldAfterPick !== picker.picked)
				throw new Error(
					`${picker.node} › ${picker.parameter}: nothing listed, or the pick did not hold`,
				);
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
