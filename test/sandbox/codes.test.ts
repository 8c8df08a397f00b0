/** codes.ts: the codes that mean "the outcome is unknown" are exported. */
import { UNKNOWN_OUTCOME_CODES } from '../../sandbox';

describe('unknown-outcome codes', () => {
	it('the list of unknown-outcome codes is exported', () => {
		expect(UNKNOWN_OUTCOME_CODES).toEqual(['-1000', '-1001', '-1006', '-1007', '-1146', '-1147']);
	});
});
