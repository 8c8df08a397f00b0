/** routes/table.ts: the public GET /api/v1/time, answered from the server clock. */
import { rawRequest } from '../../../sandbox/testClient';
import { useSandbox } from '../../support/sandbox';
import { T0 } from '../support';

let clock = T0;
beforeEach(() => {
	clock = T0;
});
const sandbox = useSandbox({ now: () => clock });

describe('GET /api/v1/time', () => {
	it('is public and returns the server clock', async () => {
		const r = await rawRequest(sandbox().baseUrl, { method: 'GET', url: '/api/v1/time' });
		expect(r.status).toBe(200);
		expect(r.headers['content-type']).toMatch(/application\/json/);
		expect(r.json).toEqual({ serverTime: T0 });
	});

	it('follows the fault plan clock offset, and reset() puts it back', async () => {
		sandbox().setFaults({ clockOffsetMs: -2500 });
		expect(sandbox().now()).toBe(T0 - 2500);
		expect(
			(await rawRequest(sandbox().baseUrl, { method: 'GET', url: '/api/v1/time' })).json,
		).toEqual({
			serverTime: T0 - 2500,
		});
		sandbox().reset();
		expect(
			(await rawRequest(sandbox().baseUrl, { method: 'GET', url: '/api/v1/time' })).json,
		).toEqual({
			serverTime: T0,
		});
	});
});
