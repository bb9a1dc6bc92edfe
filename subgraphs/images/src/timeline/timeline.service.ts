import { AppError, Page, PAGE_LIMITS, pageInfo, Principal, resolvePage } from '@em/core';
import { accessOnly, EventsRepository, guardOperation, PhotosRepository } from '@em/core/data';
import { ObjectStore } from '@em/core/storage';
import { photoView, PhotoView } from '../photos/photo-view';

export interface TimelineDay {
  date: string;
  total: number;
  hours: Array<{ hour: number; count: number }>;
}

/** An epoch-seconds bound of the window: an integer that a date can hold, else 422. */
function epochBound(name: string, value: number | null | undefined): Date {
  if (value === null || value === undefined)
    throw new AppError('UNPROCESSABLE', `${name} is required (Unix epoch seconds)`);
  if (!Number.isSafeInteger(value))
    throw new AppError('UNPROCESSABLE', `${name} must be an integer (Unix epoch seconds)`);
  const date = new Date(value * 1000);
  if (Number.isNaN(date.getTime())) throw new AppError('UNPROCESSABLE', `${name} is out of range`);
  return date;
}

export class TimelineService {
  constructor(
    private readonly events: EventsRepository,
    private readonly photos: PhotosRepository,
    private readonly store: ObjectStore,
  ) {}

  /** Per UTC day and hour counts of the event's timed, published photos. */
  async days(principal: Principal, orgId: number, eventId: number): Promise<TimelineDay[]> {
    await guardOperation(accessOnly(this.events), principal, 'timelineDays', orgId, eventId);
    const rows = await this.photos.countsByHour(eventId);
    const days: TimelineDay[] = [];
    for (const row of rows) {
      let day = days[days.length - 1];
      if (!day || day.date !== row.day) {
        day = { date: row.day, total: 0, hours: [] };
        days.push(day);
      }
      day.total += row.count;
      day.hours.push({ hour: row.hour, count: row.count });
    }
    return days;
  }

  /** Published photos captured in [from, to), ascending by capture time. */
  async window(
    principal: Principal,
    orgId: number,
    eventId: number,
    from: number | null | undefined,
    to: number | null | undefined,
    page?: number | null,
    pageSize?: number | null,
  ): Promise<Page<PhotoView>> {
    await guardOperation(accessOnly(this.events), principal, 'timelinePhotos', orgId, eventId);
    const start = epochBound('from', from);
    const end = epochBound('to', to);
    if (end.getTime() <= start.getTime()) throw new AppError('BAD_REQUEST', 'to must be greater than from');
    const request = resolvePage(page, pageSize, PAGE_LIMITS.photos);
    const { total, photos } = await this.photos.publishedCapturedBetween(eventId, start, end, request);
    return { items: photos.map((p) => photoView(p, this.store)), pageInfo: pageInfo(total, request) };
  }
}
