/** Vectors of the checks every SDK makes before sending, each refused with one reason word for word. */
import { baseInput, REASONS, refused, refusedCreate } from './common.js';

const R = REASONS;
const d1 = { $duration: 1 };
export const checks = [
  refusedCreate(
    'NaN nested in objects',
    { ...baseInput, payload: { a: { b: { $float: 'NaN' } } }, delaySeconds: d1 },
    'payload.a.b',
    R.notFinite,
  ),
  refusedCreate(
    'Infinity in an array',
    { ...baseInput, payload: { items: [1, 2, { $float: 'Infinity' }] }, delaySeconds: d1 },
    'payload.items.2',
    R.notFinite,
  ),
  refusedCreate(
    '-Infinity in an object in an array',
    { ...baseInput, payload: { list: [{ v: 1 }, { v: { $float: '-Infinity' } }] }, delaySeconds: d1 },
    'payload.list.1.v',
    R.notFinite,
  ),
  refusedCreate(
    'NaN delay',
    { ...baseInput, delaySeconds: { $duration: { $float: 'NaN' } } },
    'delaySeconds',
    R.notFinite,
  ),
  refusedCreate(
    'integer 2^53',
    { ...baseInput, payload: { id: { $int: '9007199254740992' } }, delaySeconds: d1 },
    'payload.id',
    R.unsafeInteger,
  ),
  refusedCreate(
    'integer -2^53 nested',
    { ...baseInput, payload: { o: { n: { $int: '-9007199254740993' } } }, delaySeconds: d1 },
    'payload.o.n',
    R.unsafeInteger,
  ),
  refusedCreate(
    'big integer beyond 64 bits in an array',
    { ...baseInput, payload: { ids: [{ $int: '123456789012345678901234567890' }] }, delaySeconds: d1 },
    'payload.ids.0',
    R.unsafeInteger,
  ),
  refusedCreate(
    'float 1e300 (integral, beyond 2^53)',
    { ...baseInput, payload: { big: { $float: '1e300' } }, delaySeconds: d1 },
    'payload.big',
    R.unsafeInteger,
  ),
  refusedCreate(
    'time without offset',
    { ...baseInput, executeAt: { $localtime: '2026-12-03T18:30:00' } },
    'executeAt',
    R.noOffset,
  ),
  refusedCreate(
    'both delaySeconds and executeAt',
    { ...baseInput, delaySeconds: d1, executeAt: { $time: '2026-12-03T10:30:00Z' } },
    'delaySeconds',
    R.exactlyOne,
  ),
  refusedCreate('neither delaySeconds nor executeAt', { ...baseInput }, 'delaySeconds', R.exactlyOne),
  refusedCreate(
    'negative delay',
    { ...baseInput, delaySeconds: { $duration: -1 } },
    'delaySeconds',
    R.negative,
  ),
  refusedCreate(
    'payload an array',
    { ...baseInput, payload: [1, 2], delaySeconds: d1 },
    'payload',
    R.notObject,
  ),
  refusedCreate('payload a string', { ...baseInput, payload: 'x', delaySeconds: d1 }, 'payload', R.notObject),
  refusedCreate('payload a number', { ...baseInput, payload: 3, delaySeconds: d1 }, 'payload', R.notObject),
  refused(
    'reschedule',
    'reschedule with both',
    { taskId: 't-1', delaySeconds: d1, executeAt: { $time: '2026-12-03T10:30:00Z' } },
    'delaySeconds',
    R.exactlyOne,
  ),
  refused('reschedule', 'reschedule with neither', { taskId: 't-1' }, 'delaySeconds', R.exactlyOne),
  refused(
    'reschedule',
    'reschedule with a negative delay',
    { taskId: 't-1', delaySeconds: { $duration: -0.5 } },
    'delaySeconds',
    R.negative,
  ),
  refused(
    'reschedule',
    'reschedule to a time without offset',
    { taskId: 't-1', executeAt: { $localtime: '2026-12-03T18:30:00' } },
    'executeAt',
    R.noOffset,
  ),
  refused(
    'replay',
    'replay with NaN in the new payload',
    { taskId: 't-1', payload: { x: { $float: 'NaN' } } },
    'payload.x',
    R.notFinite,
  ),
  refused(
    'replay',
    'replay with a non-object payload',
    { taskId: 't-1', payload: ['x'] },
    'payload',
    R.notObject,
  ),
  refused(
    'replay',
    'replay with both delaySeconds and executeAt',
    { taskId: 't-1', delaySeconds: d1, executeAt: { $time: '2026-12-03T10:30:00Z' } },
    'delaySeconds',
    R.atMostOne,
  ),
  refused(
    'replay',
    'replay with a negative delay',
    { taskId: 't-1', delaySeconds: { $duration: -1 } },
    'delaySeconds',
    R.negative,
  ),
];
