import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LIMITS, MINUTE_MS } from '../../schema/constants';
import { startInactivityMonitor, type InactivityMonitor } from './inactivity';

let monitor: InactivityMonitor | undefined;
const onWarning = vi.fn();
const onLogout = vi.fn();
const onHeartbeat = vi.fn();

function start(): InactivityMonitor {
  monitor = startInactivityMonitor({
    warningMs: LIMITS.inactivityWarningMs,
    logoutMs: LIMITS.inactivityLogoutMs,
    heartbeatMs: LIMITS.activityHeartbeatMs,
    onWarning,
    onLogout,
    onHeartbeat,
  });
  return monitor;
}

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(new Date('2025-01-06T09:00:00Z'));
  onWarning.mockReset();
  onLogout.mockReset();
  onHeartbeat.mockReset();
});

afterEach(() => {
  monitor?.stop();
  vi.useRealTimers();
});

describe('inactivity monitor', () => {
  it('warns once after 25 minutes and logs out after 30 minutes without activity', () => {
    start();
    vi.advanceTimersByTime(25 * MINUTE_MS - 1);
    expect(onWarning).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(onWarning).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(5 * MINUTE_MS - 1);
    expect(onLogout).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(onWarning).toHaveBeenCalledTimes(1);
    expect(onLogout).toHaveBeenCalledTimes(1);
  });

  it('restarts both timers and re-arms the warning on activity', () => {
    const m = start();
    vi.advanceTimersByTime(26 * MINUTE_MS);
    expect(onWarning).toHaveBeenCalledTimes(1);
    m.activity();
    vi.advanceTimersByTime(29 * MINUTE_MS);
    expect(onLogout).not.toHaveBeenCalled();
    expect(onWarning).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(MINUTE_MS);
    expect(onLogout).toHaveBeenCalledTimes(1);
  });

  it('reports activity to the server at most once a minute, including the last burst', () => {
    const m = start();
    m.activity();
    expect(onHeartbeat).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 50; i += 1) {
      vi.advanceTimersByTime(1000);
      m.activity();
    }
    expect(onHeartbeat).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(10_000);
    expect(onHeartbeat).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(5 * MINUTE_MS);
    expect(onHeartbeat).toHaveBeenCalledTimes(2);
  });

  it('sends no heartbeat without activity', () => {
    start();
    vi.advanceTimersByTime(20 * MINUTE_MS);
    expect(onHeartbeat).not.toHaveBeenCalled();
  });

  it('logs out at the next activity when the timers were frozen past the limit', () => {
    const m = start();
    vi.setSystemTime(Date.now() + 31 * MINUTE_MS);
    m.activity();
    expect(onLogout).toHaveBeenCalledTimes(1);
    expect(onHeartbeat).not.toHaveBeenCalled();
  });

  it('does nothing once stopped', () => {
    const m = start();
    m.stop();
    m.activity();
    vi.advanceTimersByTime(60 * MINUTE_MS);
    expect(onWarning).not.toHaveBeenCalled();
    expect(onLogout).not.toHaveBeenCalled();
    expect(onHeartbeat).not.toHaveBeenCalled();
  });
});
