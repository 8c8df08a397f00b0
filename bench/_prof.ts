import './preload';
import { startSandbox } from '../test/sandbox';
import { runNode, runFloorNode } from './nodeRun';
(async () => {
  const sb = await startSandbox({ rateLimit: false });
  const now = Date.now();
  sb.seedRecords({ flowType: 32, count: 2000, startTime: now - 7200000, endTime: now - 60000 });
  const parameters = { resource: 'account', operation: 'getHistory', flowType: 32, startTime: new Date(now - 3*3600000).toISOString(), endTime: new Date(now).toISOString(), limit: 50 };
  const inputItems = Array.from({ length: 200 }, () => ({ json: {} }));
  const which = process.argv[2];
  for (let i = 0; i < 15; i++) { const t = Date.now(); if (which === 'floor') await runFloorNode(sb, { startTime: String(now - 3*3600000), endTime: String(now), limit: '50', flowType: 32 }, inputItems); else await runNode(sb, parameters, inputItems); console.log(Date.now() - t); }
  await sb.stop();
})();
