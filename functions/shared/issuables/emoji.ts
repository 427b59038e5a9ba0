/**
 * Emoji names for award emoji (GitLab 15.4 validates with TanukiEmoji, the gemoji alpha codes: the
 * `gitlab/emoji_name` validator of app/models/award_emoji.rb) and the aliases that
 * AwardEmojis::BaseService#normalize_name turns into the canonical name (`+1` → `thumbsup`).
 *
 * Differs from GitLab: a compact list of the common gemoji names (smileys, hands, hearts, people,
 * animals, food, activities, travel, objects and symbols) and of the Emojione names GitLab's picker
 * uses (`slight_smile`, `hugging` …), not the full Unicode set; skin-tone variants and flags are left
 * out, and so are group custom emoji.
 */
const NAMES = `
100 1234 grinning smiley smile grin laughing sweat_smile rofl joy slightly_smiling_face upside_down_face
wink blush innocent smiling_face_with_three_hearts heart_eyes star_struck kissing_heart kissing relaxed
kissing_closed_eyes kissing_smiling_eyes yum stuck_out_tongue stuck_out_tongue_winking_eye zany_face
stuck_out_tongue_closed_eyes money_mouth_face hugs hand_over_mouth shushing_face thinking zipper_mouth_face
raised_eyebrow neutral_face expressionless no_mouth smirk unamused roll_eyes grimacing lying_face relieved
pensive sleepy drooling_face sleeping mask face_with_thermometer face_with_head_bandage nauseated_face
vomiting_face sneezing_face hot_face cold_face woozy_face dizzy_face exploding_head cowboy_hat_face
partying_face sunglasses nerd_face monocle_face confused worried slightly_frowning_face frowning_face
open_mouth hushed astonished flushed pleading_face frowning anguished fearful cold_sweat
disappointed_relieved cry sob scream confounded persevere disappointed sweat weary tired_face yawning_face
triumph rage angry cursing_face smiling_imp imp skull skull_and_crossbones hankey clown_face japanese_ogre
japanese_goblin ghost alien space_invader robot smiley_cat smile_cat joy_cat heart_eyes_cat smirk_cat
kissing_cat scream_cat crying_cat_face pouting_cat see_no_evil hear_no_evil speak_no_evil kiss love_letter
cupid gift_heart sparkling_heart heartpulse heartbeat revolving_hearts two_hearts heart_decoration
heavy_heart_exclamation broken_heart heart orange_heart yellow_heart green_heart blue_heart purple_heart
brown_heart black_heart white_heart anger boom dizzy sweat_drops dash hole bomb speech_balloon
left_speech_bubble right_anger_bubble thought_balloon zzz wave raised_back_of_hand raised_hand_with_fingers_splayed
hand vulcan_salute ok_hand pinching_hand v crossed_fingers love_you_gesture metal call_me_hand
point_left point_right point_up_2 middle_finger point_down point_up thumbsup thumbsdown fist facepunch
fist_left fist_right clap raised_hands open_hands palms_up_together handshake pray writing_hand nail_care
selfie muscle mechanical_arm mechanical_leg leg foot ear ear_with_hearing_aid nose brain tooth bone eyes
eye tongue lips baby child boy girl adult man woman older_adult older_man older_woman person_frowning
person_with_pouting_face no_good ok_woman information_desk_person raising_hand deaf_person bow facepalm
shrug man_shrugging woman_shrugging man_facepalming woman_facepalming man_technologist woman_technologist
technologist scientist artist cook detective guardsman construction_worker ninja prince princess
santa mrs_claus superhero supervillain mage fairy vampire merperson elf genie zombie massage haircut
walking runner running dancer man_dancing dancers bust_in_silhouette busts_in_silhouette family
footprints monkey_face monkey gorilla orangutan dog dog2 guide_dog poodle wolf fox_face raccoon cat cat2
lion tiger tiger2 leopard horse racehorse unicorn zebra deer cow ox water_buffalo cow2 pig pig2 boar
pig_nose ram sheep goat dromedary_camel camel llama giraffe elephant rhinoceros hippopotamus mouse mouse2
rat hamster rabbit rabbit2 chipmunk hedgehog bat bear koala panda_face sloth otter skunk kangaroo badger
feet turkey chicken rooster hatching_chick baby_chick hatched_chick bird penguin dove eagle duck swan owl
flamingo peacock parrot frog crocodile turtle lizard snake dragon_face dragon sauropod t-rex whale whale2
dolphin fish tropical_fish blowfish shark octopus shell snail butterfly bug ant bee honeybee beetle
lady_beetle cricket spider spider_web scorpion mosquito microbe bouquet cherry_blossom white_flower
rosette rose wilted_flower hibiscus sunflower blossom tulip seedling evergreen_tree deciduous_tree
palm_tree cactus ear_of_rice herb shamrock four_leaf_clover maple_leaf fallen_leaf leaves grapes melon
watermelon tangerine orange lemon banana pineapple mango apple green_apple pear peach cherries strawberry
kiwi_fruit tomato coconut avocado eggplant potato carrot corn hot_pepper cucumber leafy_green broccoli
garlic onion mushroom peanuts chestnut bread croissant baguette_bread pretzel bagel pancakes waffle
cheese meat_on_bone poultry_leg cut_of_meat bacon hamburger fries pizza hotdog sandwich taco burrito
stuffed_flatbread falafel egg fried_egg shallow_pan_of_food stew bowl_with_spoon green_salad popcorn butter
salt canned_food bento rice_cracker rice_ball rice curry ramen spaghetti sweet_potato oden sushi
fried_shrimp fish_cake moon_cake dango dumpling fortune_cookie takeout_box crab lobster shrimp squid
oyster icecream shaved_ice ice_cream doughnut cookie birthday cake cupcake pie chocolate_bar candy lollipop
custard honey_pot baby_bottle milk_glass coffee tea sake champagne wine_glass cocktail tropical_drink beer
beers clinking_glasses tumbler_glass cup_with_straw beverage_box mate ice_cube chopsticks plate_with_cutlery
fork_and_knife spoon hocho amphora earth_africa earth_americas earth_asia globe_with_meridians world_map
japan compass mountain_snow mountain volcano mount_fuji camping beach_umbrella desert desert_island
national_park stadium classical_building building_construction bricks houses derelict_house house
house_with_garden office post_office european_post_office hospital bank hotel love_hotel convenience_store
school department_store factory japanese_castle european_castle wedding tokyo_tower statue_of_liberty
church mosque synagogue shinto_shrine kaaba fountain tent foggy night_with_stars cityscape sunrise_over_mountains
sunrise city_sunset city_sunrise bridge_at_night hotsprings carousel_horse ferris_wheel roller_coaster
barber circus_tent steam_locomotive railway_car bullettrain_side bullettrain_front train2 metro light_rail
station tram monorail mountain_railway train bus oncoming_bus trolleybus minibus ambulance fire_engine
police_car oncoming_police_car taxi oncoming_taxi car red_car oncoming_automobile blue_car pickup_truck
truck articulated_lorry tractor racing_car motorcycle motor_scooter bike kick_scooter skateboard busstop
motorway railway_track oil_drum fuelpump rotating_light traffic_light vertical_traffic_light
stop_sign construction anchor boat sailboat canoe speedboat passenger_ship ferry motor_boat ship airplane
small_airplane flight_departure flight_arrival parachute seat helicopter suspension_railway
mountain_cableway aerial_tramway artificial_satellite rocket flying_saucer bellhop_bell luggage hourglass
hourglass_flowing_sand watch alarm_clock stopwatch timer_clock mantelpiece_clock clock12 new_moon
waxing_crescent_moon first_quarter_moon moon full_moon waning_gibbous_moon last_quarter_moon
waning_crescent_moon crescent_moon new_moon_with_face first_quarter_moon_with_face
last_quarter_moon_with_face thermometer sunny full_moon_with_face sun_with_face ringed_planet star star2
stars milky_way cloud partly_sunny cloud_with_lightning_and_rain sun_behind_small_cloud sun_behind_large_cloud
sun_behind_rain_cloud cloud_with_rain cloud_with_snow cloud_with_lightning tornado fog wind_face cyclone
rainbow closed_umbrella open_umbrella umbrella parasol_on_ground zap snowflake snowman_with_snow snowman
comet fire droplet ocean jack_o_lantern christmas_tree fireworks sparkler firecracker sparkles balloon
tada confetti_ball tanabata_tree bamboo dolls flags wind_chime rice_scene red_envelope ribbon gift
reminder_ribbon tickets ticket medal_military trophy medal_sports 1st_place_medal 2nd_place_medal
3rd_place_medal soccer baseball softball basketball volleyball football rugby_football tennis
flying_disc bowling cricket_game field_hockey ice_hockey lacrosse ping_pong badminton boxing_glove
martial_arts_uniform goal_net golf ice_skate fishing_pole_and_fish diving_mask running_shirt_with_sash ski
sled curling_stone dart yo_yo kite 8ball crystal_ball nazar_amulet video_game joystick slot_machine
game_die jigsaw teddy_bear spades hearts diamonds clubs chess_pawn black_joker mahjong flower_playing_cards
performing_arts framed_picture art thread yarn eyeglasses dark_sunglasses goggles lab_coat safety_vest
necktie shirt tshirt jeans scarf gloves coat socks dress kimono sari swimsuit bikini womans_clothes purse
handbag pouch shopping school_satchel mans_shoe athletic_shoe hiking_boot flat_shoe high_heel sandal
ballet_shoes boot crown womans_hat tophat mortar_board billed_cap rescue_worker_helmet prayer_beads
lipstick ring gem mute speaker sound loud_sound loudspeaker mega postal_horn bell no_bell musical_score
musical_note notes studio_microphone level_slider control_knobs microphone headphones radio saxophone
guitar musical_keyboard trumpet violin banjo drum iphone calling phone telephone telephone_receiver pager
fax battery electric_plug computer desktop_computer printer keyboard computer_mouse trackball minidisc
floppy_disk cd dvd abacus movie_camera film_strip film_projector clapper tv camera camera_flash
video_camera vhs mag mag_right candle bulb flashlight izakaya_lantern diya_lamp notebook_with_decorative_cover
closed_book book open_book green_book blue_book orange_book books notebook ledger page_with_curl scroll
page_facing_up newspaper newspaper_roll bookmark_tabs bookmark label moneybag yen dollar euro pound
money_with_wings credit_card receipt chart email envelope e-mail incoming_envelope envelope_with_arrow
outbox_tray inbox_tray package mailbox mailbox_closed mailbox_with_mail mailbox_with_no_mail postbox
ballot_box pencil2 black_nib fountain_pen pen paintbrush crayon memo pencil briefcase file_folder
open_file_folder card_index_dividers date calendar spiral_notepad spiral_calendar card_index
chart_with_upwards_trend chart_with_downwards_trend bar_chart clipboard pushpin round_pushpin paperclip
paperclips straight_ruler triangular_ruler scissors card_file_box file_cabinet wastebasket lock unlock
lock_with_ink_pen closed_lock_with_key key old_key hammer axe pick hammer_and_pick hammer_and_wrench
dagger crossed_swords gun bow_and_arrow shield wrench nut_and_bolt gear clamp balance_scale probing_cane
link chains toolbox magnet alembic test_tube petri_dish dna microscope telescope satellite syringe
drop_of_blood pill adhesive_bandage stethoscope door bed couch_and_lamp chair toilet shower bathtub
lotion_bottle safety_pin broom basket roll_of_paper soap sponge fire_extinguisher shopping_cart smoking
coffin funeral_urn moyai atm put_litter_in_its_place potable_water wheelchair mens womens restroom
baby_symbol wc passport_control customs baggage_claim left_luggage warning children_crossing no_entry
no_entry_sign no_bicycles no_smoking do_not_litter non-potable_water no_pedestrians no_mobile_phones
underage radioactive biohazard arrow_up arrow_upper_right arrow_right arrow_lower_right arrow_down
arrow_lower_left arrow_left arrow_upper_left arrow_up_down left_right_arrow leftwards_arrow_with_hook
arrow_right_hook arrow_heading_up arrow_heading_down arrows_clockwise arrows_counterclockwise back end on
soon top place_of_worship atom_symbol om star_of_david wheel_of_dharma yin_yang latin_cross
orthodox_cross star_and_crescent peace_symbol menorah six_pointed_star aries taurus gemini cancer leo
virgo libra scorpius sagittarius capricorn aquarius pisces ophiuchus twisted_rightwards_arrows repeat
repeat_one arrow_forward fast_forward next_track_button play_or_pause_button arrow_backward rewind
previous_track_button arrow_up_small arrow_double_up arrow_down_small arrow_double_down pause_button
stop_button record_button eject_button cinema low_brightness high_brightness signal_strength
vibration_mode mobile_phone_off female_sign male_sign medical_symbol infinity recycle fleur_de_lis
trident name_badge beginner o white_check_mark ballot_box_with_check heavy_check_mark heavy_multiplication_x
x negative_squared_cross_mark heavy_plus_sign heavy_minus_sign heavy_division_sign curly_loop loop
part_alternation_mark eight_spoked_asterisk eight_pointed_black_star sparkle bangbang interrobang question
grey_question grey_exclamation exclamation wavy_dash copyright registered tm hash asterisk zero one two
three four five six seven eight nine keycap_ten capital_abcd abcd symbols abc a ab b cl cool free
information_source id m new ng o2 ok parking sos up vs koko sa u6708 u6709 u6307 ideograph_advantage
u5272 u7121 u7981 accept u7533 u5408 u7a7a congratulations secret u55b6 u6e80 red_circle orange_circle
yellow_circle green_circle large_blue_circle purple_circle brown_circle black_circle white_circle
red_square orange_square yellow_square green_square blue_square purple_square brown_square
black_large_square white_large_square black_medium_square white_medium_square black_medium_small_square
white_medium_small_square black_small_square white_small_square large_orange_diamond large_blue_diamond
small_orange_diamond small_blue_diamond small_red_triangle small_red_triangle_down diamond_shape_with_a_dot_inside
radio_button white_square_button black_square_button checkered_flag triangular_flag_on_post
crossed_flags black_flag white_flag rainbow_flag pirate_flag tanuki
slight_smile slight_frown upside_down money_mouth nerd rolling_eyes hugging zipper_mouth head_bandage
thermometer_face fingers_crossed call_me face_palm clown cowboy left_facing_fist right_facing_fist
`;

/** Aliases (gemoji's second names) and the canonical name they award. */
const ALIASES: Record<string, string> = {
  "+1": "thumbsup",
  "-1": "thumbsdown",
  satisfied: "laughing",
  hooray: "tada",
  shit: "hankey",
  poop: "hankey",
  punch: "facepunch",
  raised_hand: "hand",
  running: "runner",
  honeybee: "bee",
  knife: "hocho",
  boat: "sailboat",
  red_car: "car",
  telephone: "phone",
  flipper: "dolphin",
  lantern: "izakaya_lantern",
  "e-mail": "email",
  pencil: "memo",
};

const CANONICAL = new Set(NAMES.split(/\s+/).filter(Boolean));

/**
 * The canonical emoji name for `name` (aliases resolved), or null when it names no known emoji
 * (`Name is not a valid emoji name`).
 */
export function emojiName(name: string): string | null {
  const alias = Object.prototype.hasOwnProperty.call(ALIASES, name) ? ALIASES[name] : undefined;
  if (alias && CANONICAL.has(alias)) return alias;
  return CANONICAL.has(name) ? name : null;
}

/** Awards that count as votes on issues and merge requests (AwardEmoji::UPVOTE_NAME / DOWNVOTE_NAME). */
export const UPVOTE_NAME = "thumbsup";
export const DOWNVOTE_NAME = "thumbsdown";

/**
 * A note body made only of one emoji (`:thumbsup:`, optionally followed by one whitespace), as
 * Note#contains_emoji_only? matched it: the emoji's canonical name, else null.
 */
export function emojiOnlyName(body: string): string | null {
  const match = /^:([a-z0-9_+\-]+):\s?$/.exec(body);
  return match ? emojiName(match[1]) : null;
}
