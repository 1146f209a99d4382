package demosite

// moreNews are the news items after the first six: unique pages, each
// about something different.
var moreNews = []text{
	{"intranet-search", "New intranet search engine", `The intranet now has a search engine that groups
copies of the same page together, so printer-friendly versions and mirrored manuals no longer clutter the
results. Try it from the box at the top of every page and tell the web team what you could not find.`},
	{"charity-run", "Charity run raises funds for the children's hospital", `Forty-two colleagues took part
in the city charity run last Sunday and raised enough money to equip a playroom at the children's hospital.
Photos of the finish line are on the social club page, and next year's team is already recruiting runners.`},
	{"solar-panels", "Solar panels installed on the warehouse roof", `The warehouse roof now carries more
than six hundred solar panels. On a sunny day they cover the entire electricity demand of the distribution
centre, and the surplus is fed into the grid. A display in the entrance hall shows today's yield.`},
	{"new-chief-executive", "Welcome to our new chief executive", `The board has appointed a new chief
executive, who joins from a logistics company and starts at the beginning of next quarter. She will visit
every site during her first hundred days and hold open question sessions with staff in each location.`},
	{"sales-move", "Sales team moves to the east wing", `Over the weekend the sales team moves from the
second floor to the refurbished east wing. Desk numbers change, phone extensions stay the same. Movers pack
labelled crates on Friday afternoon, so please clear your desk drawers by lunchtime.`},
	{"coffee-machines", "Coffee machines replaced on all floors", `The old coffee machines have been replaced
by bean-to-cup machines that also make tea and hot chocolate. They accept badge payment, and a cup costs less
than before. Descaling takes place every Monday morning, when the machines are out of service for a while.`},
	{"blood-donation", "Blood donation bus visits the campus", `A mobile blood donation unit parks in front
of building B on Wednesday. Donating takes about forty-five minutes including a short health check and a
snack afterwards. Register for a time slot on the occupational health page; walk-ins are welcome if there
is space.`},
	{"logistics-award", "Logistics team wins industry award", `Our logistics team received the regional
supply chain award for cutting delivery times to hospitals by a third. The jury praised the route planning
tool the team built together with two universities. The trophy is on display in the main lobby until the
end of the month.`},
	{"heating-pump", "Heating off while a pump is replaced", `The central heating in buildings A and C is
switched off on Tuesday while engineers replace a pump. Offices may get chilly in the afternoon; portable
heaters are not allowed for fire safety reasons, so bring a jumper or work from home if your manager agrees.`},
	{"volunteering-day", "Paid volunteering day", `Every employee may now spend one paid working day a year
volunteering for a registered charity. Agree the date with your manager, then log the day as volunteering in
the time-off tool. Ideas and partner organisations looking for helpers are collected on the community page.`},
	{"hackathon-results", "Spring hackathon results", `Fourteen teams took part in the spring hackathon. The
winning project reads delivery notes with a phone camera and fills in the goods receipt automatically; it
will be piloted in the central warehouse. Runner-up was a chatbot that answers questions about the travel
policy.`},
	{"website-relaunch", "Public website relaunched", `Our public website has a new design that works better
on phones and loads twice as fast. Product pages now show stock availability in real time. If you spot an
error on a page you are responsible for, report it to the marketing team with a link.`},
	{"retirement-webinar", "Webinar on retirement planning", `An independent adviser explains the company
pension scheme and the options for additional voluntary contributions in a lunchtime webinar on Thursday. The
session is not recorded, so that participants can ask personal questions freely. Sign up in the learning
portal.`},
	{"staff-survey", "Staff survey results published", `Thank you to the many colleagues who answered this
year's staff survey. Scores for team spirit and manager support went up, while workload and internal
communication remain the main concerns. Each department will discuss its own results and agree on three
actions before summer.`},
	{"summer-party", "Summer party at the lake", `This year's summer party takes place at the lakeside
pavilion on the last Friday of June. Buses leave the main entrance at four and return from ten onwards.
Families are welcome; there will be a barbecue, a band and games for children. Please register your guests
by the end of May.`},
	{"phishing-simulation", "Phishing simulation this autumn", `During the autumn the security team will send
simulated phishing emails to all staff. Nobody is named or shamed; results are only counted per department.
If you recognise one, use the report button as you would for a real attack, and you will get a short
explanation of the warning signs.`},
	{"charging-points", "Charging points for electric cars", `Twenty new charging points for electric cars
are available in the north car park. They are reserved for plug-in vehicles while charging and must be freed
once the battery is full. Charging is billed to your badge at cost price; pool cars have priority on the four
bays next to the gate.`},
	{"language-courses", "Free language courses", `Beginner and intermediate courses in Spanish, German and
Mandarin start after the holidays. Classes meet once a week for an hour before work, online or in the
training room. Places are limited to twelve per group and are allocated in order of registration.`},
	{"reusable-mugs", "Goodbye to disposable cups", `From next month the kitchens no longer stock disposable
cups. Every colleague receives a reusable mug with the company logo, and glasses are available at the water
dispensers. The change saves around two hundred thousand cups a year.`},
	{"customer-portal", "Customer portal goes live", `After eighteen months of development the new customer
portal is live. Customers can track orders, download invoices and open support cases themselves. The support
team expects fewer routine calls and will use the freed time for complex requests. Thanks to everyone who
tested the beta.`},
	{"mentoring", "Mentoring programme opens for applications", `Experienced colleagues can sign up as mentors
and junior staff as mentees in the new cross-department mentoring programme. Pairs meet once a month for six
months. A kick-off workshop explains how to set goals for the conversations. Applications close in three
weeks.`},
	{"lift-repair", "Lift in building C out of order", `The passenger lift in building C is out of order until
a replacement motor arrives, probably in ten days. Colleagues who cannot use the stairs may use the goods
lift, which reception operates on request, or work temporarily from the meeting rooms on the ground floor.`},
	{"anniversary", "Acme celebrates fifty years", `Fifty years ago the company started in a rented garage
with three employees and a single delivery van. To celebrate the anniversary, an exhibition of photos and
documents from the archive opens in the foyer, and every employee receives an extra day off this year.`},
	{"recycling-stations", "New recycling stations", `Recycling stations with separate bins for paper,
plastic, glass, organic waste and batteries have been placed next to every kitchen. Desk bins will be removed
next week. Confidential paper still goes into the locked grey consoles, whose contents are shredded on site.`},
	{"podcast", "Listen to the company podcast", `The communications team has launched an internal podcast.
Each episode introduces a team and the people behind a recent project; the first one visits the night shift
in the warehouse. New episodes appear every other Friday and can be played in the browser or a podcast app.`},
	{"desk-assessments", "Workplace assessments by a physiotherapist", `A physiotherapist visits the offices on
Mondays and Thursdays to check desk setups. The assessment takes twenty minutes: chair height, screen
position and keyboard placement are adjusted to you. Book a slot through occupational health; colleagues with
back or neck complaints have priority.`},
	{"warehouse-expansion", "Central warehouse expansion approved", `The board approved the expansion of the
central warehouse by a further hall with automated shelving. Construction starts in the autumn and should
finish within fourteen months. Meanwhile the lorry entrance moves to the side road and the staff car park
loses thirty spaces.`},
	{"quiet-zones", "Quiet zones on every floor", `Following feedback from the staff survey, each open-plan
floor now has a quiet zone marked with green carpet. Phone calls, video meetings and conversations are not
allowed there. Bookable booths next to the zones are available for calls that cannot wait.`},
	{"apprentices", "Welcome to our new apprentices", `Nine apprentices started their training this week in
logistics, electronics and office administration. They will rotate through several departments over the
next three years. If you see an unfamiliar young face in the corridor, say hello and show them where the
kitchen is.`},
	{"internal-jobs", "Internal job board relaunched", `Open positions are now published on the internal job
board one week before they are advertised externally. You can set up alerts for departments or locations that
interest you. Telling your manager before applying is encouraged but not required.`},
	{"flu-vaccination", "Free flu vaccinations", `Occupational health offers free flu vaccinations in
October. The vaccination room is on the ground floor of building A, and appointments are available every
morning. Bring your health insurance card. Colleagues at the distribution centre can use the mobile team
that visits on two afternoons.`},
	{"fewer-printers", "Fewer printers, lower costs", `Printing volumes have halved since badge release was
introduced, so one printer per floor will be removed next quarter. The remaining devices get new trays for
envelopes and labels. Thanks to everyone who prints less and scans more.`},
	{"partner-delegation", "Delegation from our Japanese partner", `A delegation from our partner company in
Osaka visits the headquarters next week to discuss the joint sensor project. They will tour the laboratories
on Tuesday. Please keep desks in the lab area tidy and do not leave prototypes or drawings unattended.`},
	{"chess-club", "Chess club looks for new members", `The lunchtime chess club meets every Wednesday in the
small canteen room. Players of every level are welcome, from complete beginners to club players. Boards and
clocks are provided, and a friendly internal tournament starts next month with a trophy for the winner.`},
	{"water-supply", "Water supply interrupted on Saturday", `The water supply to the headquarters will be
interrupted on Saturday morning while the utility company connects a new main. Toilets and kitchens will be
unavailable until about midday. Colleagues planning weekend work should use the distribution centre instead.`},
	{"data-centre-migration", "Data centre migration completed", `All business applications now run in the
new data centre, which uses less energy and has a second power feed. The migration over four weekends went
without major incidents. A few old file shares stay read-only for another month before they are switched
off.`},
	{"sustainability-report", "Sustainability report published", `The annual sustainability report shows
carbon emissions down by eleven percent, mainly thanks to the switch to green electricity and fewer flights.
Targets for next year include electric delivery vans in two cities and a heat pump for building B.`},
	{"street-food", "Street food trucks on Fridays", `Starting this month, a different street food truck parks
in the courtyard every Friday lunchtime, from tacos to dumplings. The schedule is posted at the entrance.
Payment is by card only, and the trucks leave at two so the courtyard is clear for deliveries.`},
	{"family-open-day", "Open day for families", `On the first Saturday of September we open our doors to
families and friends. Children can drive a small forklift under supervision, visit the laboratories and see
how parcels find their way through the sorting centre. Register the number of guests by the end of August.`},
	{"security-contractor", "New reception and security contractor", `A new contractor takes over reception
and security services from the first of next month. Most of the familiar faces stay, but the uniforms and the
phone number of the night guard change. The new number is printed on the back of every badge issued from
then on.`},
	{"machine-translation", "Machine translation tool available", `A secure machine translation service is
now available in the browser for documents up to twenty pages. Unlike public translation websites it keeps
texts within our own environment, so it may be used for internal and confidential material. Legal and
marketing texts still need a human review.`},
	{"longest-serving", "Farewell to our longest-serving colleague", `After forty-one years with the company,
the foreman of the assembly line retires at the end of this month. He started as an apprentice and trained
generations of technicians. Colleagues are invited to a farewell reception in the workshop on his last day.`},
	{"open-source", "Our first open source release", `The engineering department has published its library
for reading barcode scanner data as open source. It has been used internally for five years. Publishing it
lets partners contribute fixes, and the legal team has prepared guidelines for other projects that want to
follow.`},
	{"wellbeing-week", "Wellbeing week", `Wellbeing week brings yoga sessions before work, a talk on sleep,
healthy cooking demonstrations and a step challenge between departments. All activities are voluntary and
take place in working time. The full programme is pinned on the notice boards next to the lifts.`},
	{"softphones", "New telephone system", `Desk phones are being replaced by a softphone in the chat
application. Your extension moves with you, and calls can be answered on the laptop or in the mobile app.
Reception and the warehouse keep physical handsets. The switch happens department by department over six
weeks.`},
	{"book-exchange", "Book exchange shelf in the lobby", `A book exchange shelf has been set up in the lobby
of building A. Take a novel for the train and bring one back when you are done. Please do not leave
textbooks, magazines or damaged books; the social club tidies the shelf every fortnight.`},
	{"innovation-fund", "Innovation fund accepts proposals", `Teams with an idea for a new product or a better
internal process can apply for money from the innovation fund. A one-page proposal is enough for the first
round. Selected teams pitch to a panel of directors and receive up to three months of funding to build a
prototype.`},
	{"winter-weather", "Winter weather arrangements", `When heavy snow is forecast, check the intranet home
page before setting out. If the site manager closes the office, everyone who can works from home; warehouse
shifts are organised by the shift leaders by phone. Gritting of the paths starts at five in the morning.`},
	{"diversity-network", "Launch of the diversity network", `Colleagues have founded an employee network to
support diversity and inclusion across the company. It organises talks, gives feedback on policies and offers
a confidential space for exchange. Membership is open to everyone, and the first meeting takes place in the
auditorium.`},
	{"external-audit", "External audit next month", `The external auditors will be on site for two weeks next
month to review the annual accounts. They may ask finance, purchasing and warehouse staff for documents or
short interviews. Please answer their requests promptly and send questions about scope to the office of the
finance director.`},
	{"football-tournament", "Five-a-side football tournament", `Departments compete in the annual five-a-side
football tournament at the sports centre. Mixed teams are encouraged, and every team needs at least one
substitute. The final is followed by a barbecue. Registration forms are available from the social club.`},
	{"roof-garden", "Roof garden opens", `The roof garden on building B is open from spring to autumn during
working hours. Colleagues can take breaks among raised beds of herbs and vegetables, and volunteers look after
the plants. Please keep noise low, as the garden is above the management offices.`},
	{"step-free-access", "Better access for wheelchair users", `Ramps have been added at the side entrances of
buildings A and C, and automatic doors now open with a push button. Two accessible parking bays were moved
closer to the entrance. Remaining barriers can be reported to the facility manager.`},
	{"intranet-questionnaire", "Help us improve this intranet", `The web team wants to know what you look for
on the intranet and what you cannot find. A five-minute questionnaire is open until the end of the month.
Every participant can join a draw for a pair of cinema vouchers.`},
}
