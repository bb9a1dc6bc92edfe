/**
 * Who is where on the group shots of ../shared/fixtures/faces/group: approximate face centres in
 * pixels of the original, labelled by hand. A detected face takes the label whose centre lies in its
 * box; `unknown` is a real face of none of the eight people.
 */
export const GROUP_FACES: Record<string, Array<[person: string, x: number, y: number]>> = {
  'bbt1.jpg': [
    ['raj', 258, 190],
    ['leonard', 516, 200],
    ['howard', 775, 185],
    ['sheldon', 1050, 140],
  ],
  'bbt2.jpg': [
    ['unknown', 25, 120],
    ['leonard', 135, 170],
    ['sheldon', 417, 168],
  ],
  'bbt3.jpg': [
    ['sheldon', 65, 58],
    ['howard', 180, 118],
    ['penny', 280, 130],
    ['raj', 390, 140],
    ['leonard', 518, 135],
  ],
  'bbt4.jpg': [
    ['amy', 125, 80],
    ['raj', 275, 95],
    ['bernadette', 620, 118],
    ['leonard', 95, 320],
    ['penny', 298, 285],
    ['sheldon', 510, 230],
  ],
  'bbt5.jpg': [
    ['raj', 148, 210],
    ['penny', 256, 78],
    ['sheldon', 480, 200],
    ['leonard', 612, 92],
    ['howard', 760, 150],
  ],
};
