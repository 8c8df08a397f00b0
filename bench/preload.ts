/**
 * Makes the test harness loadable under plain Node + ts-node (import this first in bench/):
 *
 * 1. Module resolution: `require('…/TradingService.node')` must find `TradingService.node.ts`, not
 *    the `TradingService.node.json` codex file beside it. Node tries extensions in registration
 *    order (.js, .json, .node, then ts-node's .ts); Jest tries .ts before .json. Moving .json and
 *    .node behind .ts gives the Jest order.
 *
 * 2. The test harness (tools/harness/workflow.ts) builds n8n's additional data with jest-mock-extended,
 * which imports `@jest/globals` and refuses to load outside Jest. The benchmarks run the real
 * harness under plain Node, so this module answers `require('@jest/globals')` with the one thing
 * jest-mock-extended uses: `jest.fn`. The stand-in does not record calls (a recording mock would
 * keep every argument alive and distort the memory figures).
 */
import Module from 'node:module';

type AnyFunction = (...args: unknown[]) => unknown;

function fn(implementation?: AnyFunction) {
	let current = implementation;
	const mockFunction = ((...args: unknown[]) => current?.(...args)) as AnyFunction &
		Record<string, unknown>;
	mockFunction.getMockImplementation = () => current;
	mockFunction.mockImplementation = (next: AnyFunction) => {
		current = next;
		return mockFunction;
	};
	mockFunction.mockReturnValue = (value: unknown) => {
		current = () => value;
		return mockFunction;
	};
	mockFunction.mockClear = () => mockFunction;
	mockFunction.mockReset = () => mockFunction;
	return mockFunction;
}

const shim = { jest: { fn } };

const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
const originalLoad = loader._load;
loader._load = function (request: string, ...rest: unknown[]) {
	if (request === '@jest/globals') return shim;
	return originalLoad.call(this, request, ...rest);
};

const extensions = (Module as unknown as { _extensions: Record<string, unknown> })._extensions;
for (const extension of ['.json', '.node']) {
	const handler = extensions[extension];
	delete extensions[extension];
	extensions[extension] = handler;
}
