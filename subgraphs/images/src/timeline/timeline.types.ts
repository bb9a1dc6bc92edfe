import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType('TimelineHour')
export class TimelineHourType {
  @Field(() => Int, { description: 'UTC hour, 0-23.' }) hour!: number;
  @Field(() => Int) count!: number;
}

@ObjectType('TimelineDay')
export class TimelineDayType {
  @Field({ description: 'UTC calendar date, YYYY-MM-DD.' }) date!: string;
  @Field(() => Int) total!: number;
  @Field(() => [TimelineHourType], { description: 'Ascending by hour.' }) hours!: TimelineHourType[];
}
