import { useEffect, useState } from 'preact/hooks';
import { Api, ApiError, TimelineDay } from './api';
import { View } from './route';
import { formatDay, formatHour, hourWindow } from './time';

/** The event's days and hours as a strip; choosing one shows that window. Buckets are UTC; labels are in the event's zone. */
export function Timeline({
  api,
  zone,
  view,
  onChoose,
}: {
  api: Api;
  zone: string;
  view: View;
  onChoose: (v: View) => void;
}) {
  const [days, setDays] = useState<TimelineDay[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api.timelineDays().then(
      (d) => setDays(d.days),
      (e: ApiError) => setError(e.message),
    );
  }, [api]);

  if (error)
    return (
      <p class="error" role="alert">
        {error}
      </p>
    );
  if (!days || days.length === 0) return null;
  const chosenDay = view.kind === 'time' ? view.day : days.length === 1 ? days[0].date : null;
  const chosenHour = view.kind === 'time' ? view.hour : null;
  const day = days.find((d) => d.date === chosenDay);
  const withYear = new Set(days.map((d) => d.date.slice(0, 4))).size > 1;
  return (
    <nav class="timeline" aria-label="Browse by time">
      <h2>Browse by time</h2>
      <ul class="strip" aria-label="Days">
        {days.map((d) => (
          <li key={d.date}>
            <button
              type="button"
              data-day={d.date}
              aria-pressed={view.kind === 'time' && view.day === d.date && view.hour === null}
              onClick={() => onChoose({ kind: 'time', day: d.date, hour: null })}
            >
              {formatDay(new Date(hourWindow(d.date, null).from * 1000), 'UTC', withYear)}{' '}
              <span class="count">({d.total})</span>
            </button>
          </li>
        ))}
      </ul>
      {day && (
        <ul class="strip hours" aria-label="Hours">
          {day.hours.map((h) => (
            <li key={h.hour}>
              <button
                type="button"
                aria-pressed={view.kind === 'time' && chosenHour === h.hour}
                onClick={() => onChoose({ kind: 'time', day: day.date, hour: h.hour })}
              >
                {formatHour(new Date(hourWindow(day.date, h.hour).from * 1000), zone)}{' '}
                <span class="count">({h.count})</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </nav>
  );
}
