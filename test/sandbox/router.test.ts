/** router.ts: an unknown path is answered 404, a wrong method 405, both with -1020. */
import { rawRequest } from '../../sandbox/testClient';
import { useSandbox } from '../support/sandbox';
import { T0 } from './support';

const sandbox = useSandbox({ now: () => T0 });

describe('unknown paths and methods', () => {
	it('404 for an unknown path, 405 for a wrong method', async () => {
		const a = await rawRequest(sandbox().baseUrl, { method: 'GET', url: '/api/v1/nope' });
		expect(a.status).toBe(404);
		expect(a.json.code).toBe('-1020');
		expect(a.json.msg).toMatch(/^Unsupported operation/);
		const b = await rawRequest(sandbox().baseUrl, { method: 'POST', url: '/api/v1/time' });
		expect(b.status).toBe(405);
		expect(b.json.code).toBe('-1020');
	});
});
