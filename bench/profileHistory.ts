/**
 * CPU profile of bench 1's node side in-process: 200 signed history calls (50 records each),
 * repeated, under --cpu-prof. Run: node --cpu-prof --cpu-prof-dir=/tmp/prof -r ts-node/register/transpile-only bench/profileHistory.ts
 * Prints the node time per round; read the profile with cpuProfile.ts's summary or Chrome DevTools.
 */
import './preload';

import { startSandbox } from '../sandbox';
import { runFloorNode, runNode } from './nodeRun';

const HOUR = 3_600_000;

async function main(): Promise<void> {
	const sandbox = await startSandbox({ rateLimit: false, symbolRules: 'lenient' });
	const now = Date.now();
	sandbox.seedRecords({
		flowType: 32,
		count: 2000,
		startTime: now - 2 * HOUR,
		endTime: now - 60_000,
		seed: 7,
	});
	const startTime = now - 3 * HOUR;
	const parameters = {
		resource: 'account',
		operation: 'getHistory',
		flowType: 32,
		startTime: new Date(startTime).toISOString(),
		endTime: new Date(now).toISOString(),
		returnAll: false,
		limit: 50,
	};
	const floorQuery = {
		startTime: String(startTime),
		endTime: String(now),
		limit: '50',
		flowType: 32,
	};
	const inputItems = Array.from({ length: 200 }, () => ({ json: {} }));
	const which = process.env.PROFILE_SIDE ?? 'node';
	for (let round = 0; round < Number(process.env.PROFILE_ROUNDS ?? 10); round++) {
		const started = performance.now();
		const run =
			which === 'floor'
				? await runFloorNode(sandbox, floorQuery, inputItems)
				: await runNode(sandbox, parameters, inputItems);
		if (run.error) throw run.error;
		console.log(`${which} round ${round}: ${(performance.now() - started).toFixed(1)} ms`);
	}
	await sandbox.stop();
}

void main();
