/**
 * The node in n8n's editor: a real n8n 2.41.1 (`n8n start`) with the package installed as users
 * install it and the examples imported, driven by playwright-core with Debian's chromium. Checks
 * the Resource and Operation dropdowns against the node's own description, runs the batch-orders
 * example from the editor, and saves a screenshot of the Create Many node's panel with the Order
 * Operation dropdown open, every operation in view (to a temp dir; E2E_SCREENSHOT_PATH overrides;
 * `npm run screenshot:editor` writes docs/editor-order-operations.png).
 *
 * Needs Debian's chromium (`npm run test:all` installs it when it can); without it the suite fails
 * with the command to run, unless SKIP_SUITES names `editor`.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import { DEMO_ACCOUNTS } from '../../sandbox';
import { describeE2E } from '../support/describe-e2e';
import {
	checkEditor,
	describedOptions,
	findChromium,
	CHROMIUM_CANDIDATES,
	VIEWPORT,
	type EditorCheck,
} from '../../tools/n8n/editor';
import { loadAllExamples } from '../../tools/n8n/examples';
import { leakedSecrets, setUpN8nWithSandbox, type E2eFixture } from '../../tools/n8n/fixture';
import { startN8n, type N8nInstance } from '../../tools/n8n/server';

const chromiumPath = findChromium();
const editorSkipped = (process.env.SKIP_SUITES ?? '').split(',').includes('editor');
const describeWithChromium = chromiumPath && !editorSkipped ? describeE2E : describe.skip;

// Without chromium this suite fails, saying what to install; it is skipped only when SKIP_SUITES
// names it (and test/support/noSkippedTests.js lets that skip through).
if (!chromiumPath && !editorSkipped) {
	describeE2E("the Trading Service node in n8n's editor", () => {
		it('needs chromium', () => {
			throw new Error(
				`No chromium found (${process.env.CHROMIUM_PATH ? `CHROMIUM_PATH=${process.env.CHROMIUM_PATH}` : CHROMIUM_CANDIDATES.join(', ')}). ` +
					'Install it with `sudo apt-get install -y chromium`, or set SKIP_SUITES=editor to skip this suite.',
			);
		});
	});
}

/** Width and height from a PNG's IHDR chunk. */
function pngSize(file: string): { width: number; height: number } {
	const header = fs.readFileSync(file).subarray(0, 24);
	expect(header.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
	return { width: header.readUInt32BE(16), height: header.readUInt32BE(20) };
}

describeWithChromium(
	`the Trading Service node in n8n's editor (chromium${chromiumPath ? ` at ${chromiumPath}` : ': not found, skipped'})`,
	() => {
		let fx: E2eFixture;
		let n8n: N8nInstance;
		let result: EditorCheck;
		const screenshotPath =
			process.env.E2E_SCREENSHOT_PATH ??
			path.join(
				fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-e2e-shot-')),
				'editor-order-operations.png',
			);

		beforeAll(async () => {
			fx = await setUpN8nWithSandbox({ prefix: 'n8n-e2e-editor-', workflows: loadAllExamples() });
			n8n = await startN8n(fx.env);
			result = await checkEditor({ n8n, chromiumPath: chromiumPath!, screenshotPath });
		});

		afterAll(async () => {
			await n8n?.stop();
			if (n8n && fx) expect(leakedSecrets(n8n.logs(), fx.secrets)).toEqual([]);
			await fx?.cleanup();
		});

		// What the node's description (actions/<resource>/index.ts) declares; the editor must show it all.
		const described = describedOptions();

		test('the node describes Account, Market and Order, with every operation (the lists the editor must show)', () => {
			expect(described.resources).toEqual(['Account', 'Market', 'Order']);
			expect(described.operations.Market).toEqual([
				'Get 24h Ticker',
				'Get Candles',
				'Get Order Book',
				'Get Price',
				'Get Recent Trades',
				'Get Symbol Rules',
			]);
			expect(described.operations.Account).toEqual([
				'Get Balances',
				'Get Transaction History',
				'Transfer Asset',
			]);
			expect(described.operations.Order).toEqual([
				'Cancel',
				'Cancel Many',
				'Create',
				'Create Many',
				'Get',
				'Get Many',
			]);
		});

		test("the Resource dropdown lists the resources of the node's description", () => {
			expect(result.resources).toEqual(described.resources);
		});

		test(`the Operation dropdown lists every operation of the description: Account -> ${described.operations.Account.join(', ')}; Order -> ${described.operations.Order.join(', ')}`, () => {
			expect(result.accountOperations).toEqual(described.operations.Account);
			expect(result.orderOperations).toEqual(described.operations.Order);
		});

		test('"Execute workflow" in the editor runs the batch-orders example: 45 items out, 45 orders in the sandbox', () => {
			expect(result.outputItemsText).toMatch(/^45 items/);
			expect(fx.sb.ledger.orders).toHaveLength(45);
			expect(
				fx.sb.ledger.orders.every(
					(o) => o.accountId === DEMO_ACCOUNTS.mainTrading && o.via === 'batch',
				),
			).toBe(true);
			expect(
				fx.sb.ledger.requests.filter((r) => r.path === '/api/v1/spot/batchOrders'),
			).toHaveLength(3);
		});

		test('the screenshot of the node panel is a PNG of the whole window, taken with every Order operation of the open dropdown in view', () => {
			expect(fs.statSync(screenshotPath).size).toBeGreaterThan(20_000);
			expect(pngSize(screenshotPath)).toEqual(VIEWPORT);
			expect(result.orderOperationsInScreenshot).toEqual(described.operations.Order);
		});
	},
);
