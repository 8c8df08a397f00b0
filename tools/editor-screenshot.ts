/**
 * Screenshots of the Trading Service node in n8n's editor, for the docs:
 *
 *   npm run screenshot:editor            # builds, installs the n8n runtime (cached), writes the PNGs below
 *   npm run screenshot:editor -- --out /tmp/shot.png --dir /tmp/screens
 *
 * Starts the sandbox and a real n8n 2.41.1 with the package installed from `npm pack`, the
 * examples and the picker workflows imported, places two open orders in the sandbox, signs in with
 * Debian's chromium (playwright-core; never a browser download), and
 * - writes the version-2 panels a trader meets, each cropped to the node's form (docs/screenshots/):
 *   create-v2.png (Create with Guardrails and Options filled in), guardrail-list.png (Add Guardrail
 *   open), symbol-list.png (the Symbol list: last prices, symbols that cannot be traded last),
 *   cancel-v2.png (Cancel: Find Order By and the one field), order-list.png (the Order ID list:
 *   time, whole ID, side, type, quantity and price with coins), candles-v2.png (Get Candles: Start
 *   Time under Options) and credential.png (the credential: units on every number);
 * - then runs the editor check of tools/n8n/editor.ts, whose picture (docs/editor-symbol-picker.png,
 *   or --out) is the version-2 Create node with its Symbol list open, every symbol in view (it fails
 *   otherwise). It also checks the Resource and Operation dropdowns against the node's description
 *   and that each picker listed something and kept what was picked. The same steps, with every
 *   list held against the sandbox, run as test/e2e/editor.e2e.test.ts.
 */
import * as fsp from 'fs/promises';
import * as path from 'path';

import type { Locator, Page } from 'playwright-core';

import {
	checkEditor,
	describedOptions,
	findChromium,
	launchChromium,
	loadPickerWorkflows,
	openNodePanel,
	openPicker,
	openWorkflow,
	pickerRows,
	seedPickerOrders,
	signIn,
	PICKER_WORKFLOWS,
	PICKS,
} from './n8n/editor';
import { loadAllExamples } from './n8n/examples';
import { setUpN8nWithSandbox } from './n8n/fixture';
import { REPO_ROOT } from './n8n/runtime';
import { startN8n, type N8nInstance } from './n8n/server';

function log(message: string): void {
	process.stderr.write(`[screenshot] ${message}\n`);
}

function argument(name: string, fallback: string): string {
	const index = process.argv.indexOf(name);
	return path.resolve(index > 0 ? process.argv[index + 1] : fallback);
}

/** The node form's column of the open panel: from its top down to the lowest of `also`. */
async function shootForm(page: Page, file: string, also: Locator[] = []): Promise<void> {
	await page.waitForTimeout(500); // animations, lists rendering
	const form = page.locator('[data-test-id="ndv"] [data-test-id="node-parameters"]');
	const box = await form.boundingBox();
	const ndv = await page.locator('[data-test-id="ndv"]').first().boundingBox();
	if (!box || !ndv) throw new Error(`${file}: no node panel to photograph`);
	// The form's last field (the panel itself runs to the window's bottom).
	let bottom = await form.evaluate((element) => {
		// Runs in the browser (no DOM library in this project's TypeScript: the calls used, typed here).
		type Dom = { getBoundingClientRect(): { height: number; bottom: number } };
		const fields = (
			element as unknown as { querySelectorAll(selector: string): Dom[] }
		).querySelectorAll(
			'[data-test-id*="parameter"], [data-test-id*="collection"], [data-test-id*="resource-locator"]',
		);
		let lowest = 0;
		for (const field of fields) {
			const rect = field.getBoundingClientRect();
			if (rect.height > 0) lowest = Math.max(lowest, rect.bottom);
		}
		return lowest;
	});
	for (const locator of also) {
		const extra = await locator.boundingBox();
		if (extra) bottom = Math.max(bottom, extra.y + extra.height);
	}
	const viewport = page.viewportSize()!;
	const top = Math.max(ndv.y, box.y - 60);
	const x = Math.max(0, box.x - 16);
	await page.screenshot({
		path: file,
		clip: {
			x,
			y: top,
			width: Math.min(box.width + 32, viewport.width - x),
			height: Math.min(bottom + 16, viewport.height) - top,
		},
	});
	log(`${path.basename(file)}: ${(await fsp.stat(file)).size} bytes`);
}

/** Closes the node panel: Escape, else (a list had the focus) its close button. */
async function leavePanel(page: Page): Promise<void> {
	const operation = page.locator('[data-test-id="ndv"] [data-test-id="parameter-input-operation"]');
	await page.keyboard.press('Escape');
	await page.waitForTimeout(400);
	if (await operation.isVisible()) {
		await page.keyboard.press('Escape');
		await page.waitForTimeout(400);
	}
	if (await operation.isVisible())
		await page.locator('[data-test-id="ndv-close-button"]').first().click();
	await operation.waitFor({ state: 'hidden', timeout: 15_000 });
}

/** The version-2 panels of the docs, each cropped to the form (and the list it has open). */
async function shootPanels(n8n: N8nInstance, chromiumPath: string, dir: string): Promise<void> {
	await fsp.mkdir(dir, { recursive: true });
	const browser = await launchChromium(chromiumPath);
	try {
		const page = await browser.context.newPage();
		page.setDefaultTimeout(30_000);
		await page.setViewportSize({ width: 1400, height: 1300 });
		await signIn(page, n8n);
		const screens = PICKER_WORKFLOWS.screens;
		const shot = (name: string) => path.join(dir, name);

		await openWorkflow(page, n8n, screens.id, screens.create);
		await openNodePanel(page, screens.create);
		await shootForm(page, shot('create-v2.png'));
		// Create's two collections: Guardrails, then Options (version 1 has Options alone).
		const adders = page.locator('[data-test-id="ndv"] [data-test-id="collection-parameter-add"]');
		const guardrails = adders.locator('input[placeholder="Add Guardrail"]');
		if ((await guardrails.count()) === 1) {
			const listId = await guardrails.getAttribute('aria-controls');
			await guardrails.click();
			const option = page.locator(`[id="${listId}"] [role="option"]`).last();
			await option.waitFor({ timeout: 10_000 });
			await shootForm(page, shot('guardrail-list.png'), [option]);
			await page.keyboard.press('Escape');
			await page.waitForTimeout(300);
		} else log('guardrail-list.png: no Add Guardrail in this build, skipped');
		await leavePanel(page);

		await openNodePanel(page, screens.cancel);
		await shootForm(page, shot('cancel-v2.png'));
		await openPicker(page, 'orderId');
		await shootForm(page, shot('order-list.png'), [pickerRows(page, 'orderId').last()]);
		await page.keyboard.press('Escape');
		await page.locator('[data-test-id="ndv"] [data-test-id="credential-edit-button"]').click();
		const dialog = page.locator('[data-test-id="credential-edit-dialog"]');
		await dialog.waitFor({ timeout: 15_000 });
		await page.waitForTimeout(800);
		// The form scrolls inside the dialog: its numbers (Receive Window on) in view.
		await dialog.getByText('Receive Window (Milliseconds)', { exact: true }).evaluate((label) =>
			(label as unknown as { scrollIntoView(options: object): void }).scrollIntoView({
				block: 'start',
			}),
		);
		await page.waitForTimeout(300);
		await dialog
			.locator('.el-dialog, [role="dialog"]')
			.first()
			.or(dialog)
			.first()
			.screenshot({
				path: shot('credential.png'),
			});
		log(`credential.png: ${(await fsp.stat(shot('credential.png'))).size} bytes`);
		await page.keyboard.press('Escape');
		await page.waitForTimeout(300);
		await leavePanel(page);

		await openNodePanel(page, screens.candles);
		await shootForm(page, shot('candles-v2.png'));
		await leavePanel(page);

		const editor = PICKER_WORKFLOWS.editor;
		await openWorkflow(page, n8n, editor.id, editor.create);
		await openNodePanel(page, editor.create);
		await openPicker(page, 'symbol');
		await shootForm(page, shot('symbol-list.png'), [pickerRows(page, 'symbol').last()]);
	} finally {
		await browser.close();
	}
}

async function main(): Promise<void> {
	const out = argument('--out', path.join(REPO_ROOT, 'docs', 'editor-symbol-picker.png'));
	const dir = argument('--dir', path.join(REPO_ROOT, 'docs', 'screenshots'));
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
		// Prices stand still while the pictures are taken.
		sandbox: { market: { moving: false } },
	});
	let n8n: N8nInstance | undefined;
	try {
		log('starting n8n');
		n8n = await startN8n(fx.env);
		const placed = seedPickerOrders(fx.sb);
		await shootPanels(n8n, chromiumPath, dir);
		const result = await checkEditor({
			n8n,
			chromiumPath,
			screenshotPath: out,
			picks: { ...PICKS, orderId: placed[1].orderId },
			log,
		});
		checkResult(result);
		console.log(out);
		console.log(dir);
	} finally {
		await n8n?.stop();
		await fx.cleanup();
	}
}

/** The editor check's findings, logged; a dropdown or picker that is not as described fails. */
function checkResult(result: Awaited<ReturnType<typeof checkEditor>>): void {
	log(`Resource: ${result.resources.join(', ')}`);
	log(`Operation (Account): ${result.accountOperations.join(', ')}`);
	log(`Operation (Order): ${result.orderOperations.join(', ')}`);
	for (const picker of result.pickers) {
		log(`${picker.node} › ${picker.parameter}: ${picker.shown.join(' | ')} -> ${picker.picked}`);
		if (picker.cut.length > 0) log(`  cut short in the list: ${picker.cut.join(' | ')}`);
	}
	log(`Symbols in the picture: ${result.symbolsInScreenshot.join(', ')}`);
	log(`Create Many output: ${result.outputItemsText}`);
	const describedV2 = describedOptions(2);
	const expected = [
		['Resource (version 2)', result.v2.resources, describedV2.resources],
		['Operation (Account, version 2)', result.v2.accountOperations, describedV2.operations.Account],
		['Operation (Order, version 2)', result.v2.orderOperations, describedV2.operations.Order],
		['Symbols in the picture', result.symbolsInScreenshot, result.pickers[0].shown],
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
}

main().catch((error: unknown) => {
	process.stderr.write(
		`[screenshot] FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
	);
	process.exitCode = 1;
});
